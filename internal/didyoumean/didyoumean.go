// Package didyoumean finds what a person most likely meant by a mistyped
// name: the command line's commands, the strategies.
package didyoumean

import "strings"

// Closest returns the candidate nearest to typed — by edit distance
// (insertions, deletions, substitutions and swaps of neighbours, case
// ignored), or one that typed is a prefix of — when it is near enough to
// be a slip: within a third of the name's length; typed itself is never
// suggested.
func Closest(typed string, candidates []string) (string, bool) {
	t := strings.ToLower(typed)
	best, bestD := "", 1<<30
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(t, lc)
		if len(t) >= 2 && strings.HasPrefix(lc, t) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || best == typed || bestD > max(1, len([]rune(best))/3) {
		return "", false
	}
	return best, true
}

// Hint is ` (did you mean "x"?)` for the closest candidate, or "".
func Hint(typed string, candidates []string) string {
	if c, ok := Closest(typed, candidates); ok {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}

// distance is the optimal string alignment distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
