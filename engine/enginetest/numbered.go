package enginetest

import (
	"regexp"
	"strconv"
)

var tagRE = regexp.MustCompile(`<C(\d+)>`)

// Numbered reads a numbered context as the sentence-level prompts show it
// ("<C0>First sentence. <C1>Second…"), so a scripted model can cite what
// it was shown: the numbers in the order they appear, and for each the
// text after its tag up to the next tag or the end of ctx.
func Numbered(ctx string) (nums []int, texts map[int]string) {
	texts = map[int]string{}
	locs := tagRE.FindAllStringSubmatchIndex(ctx, -1)
	for i, l := range locs {
		n, _ := strconv.Atoi(ctx[l[2]:l[3]])
		end := len(ctx)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		nums = append(nums, n)
		texts[n] = ctx[l[1]:end]
	}
	return nums, texts
}
