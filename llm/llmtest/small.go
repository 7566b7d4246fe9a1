package llmtest

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Habit is one way a small local model misses a prompt's format, as
// peers' trackers report them ("Citation Highlight feature rarely works
// under small LLMs", kotaemon #541). SmallModel gives a responder some.
type Habit string

// The habits. Each touches about half the replies, chosen by the seed
// and the request (see SmallModel).
const (
	// IgnoresTemplate answers in prose instead of the asked format: an
	// "**Answer:**" heading, then the reply without its tags, labels,
	// brackets and braces.
	IgnoresTemplate Habit = "ignores-template"
	// CitesOutOfRange cites numbers beyond anything shown: every "[a-b]"
	// and "[k]" moves up by OutOfRangeShift.
	CitesOutOfRange Habit = "out-of-range"
	// Markdown wraps the reply in a code fence and each statement in a
	// list item in bold.
	Markdown Habit = "markdown"
	// Repeats writes the reply three times over.
	Repeats Habit = "repeats"
	// StopsMidTag stops inside the reply's last tag (or halfway, with
	// none), with finish_reason "length".
	StopsMidTag Habit = "stops-mid-tag"
)

// OutOfRangeShift is how far CitesOutOfRange moves a cited number.
const OutOfRangeShift = 100000

// Habits lists every habit, in a fixed order.
func Habits() []Habit {
	return []Habit{IgnoresTemplate, CitesOutOfRange, Markdown, Repeats, StopsMidTag}
}

// ParseHabits reads a comma-separated list of habits; "all" is every one.
func ParseHabits(s string) ([]Habit, error) {
	if strings.TrimSpace(s) == "all" {
		return Habits(), nil
	}
	var out []Habit
	for _, f := range strings.Split(s, ",") {
		h := Habit(strings.TrimSpace(f))
		if h == "" {
			continue
		}
		if !slices.Contains(Habits(), h) {
			names := make([]string, 0, len(Habits()))
			for _, k := range Habits() {
				names = append(names, string(k))
			}
			return nil, fmt.Errorf("unknown habit %q: the habits are %s, or all", h, strings.Join(names, ", "))
		}
		out = append(out, h)
	}
	return out, nil
}

// SmallModel makes respond answer as a small model with the given habits.
// Each habit touches a reply when a hash of the seed, the habit and the
// request's messages is even: about half the replies, the same ones on
// every run with the same seed, so a failure it finds is reproduced
// exactly. A reply carrying a fault (a status, a hang-up) is left alone.
//
// A request sent again is a new draw (the hash counts how often the same
// messages came before), as a sampling model's second try differs from
// its first.
func SmallModel(seed uint64, habits []Habit, respond func(ChatRequest) Reply) func(ChatRequest) Reply {
	var (
		mu   sync.Mutex
		seen = map[uint64]int{}
	)
	return func(r ChatRequest) Reply {
		reply := respond(r)
		if reply.Status != 0 && reply.Status != 200 || reply.Hangup {
			return reply
		}
		key := hashOf(0, "", r, 0)
		mu.Lock()
		try := seen[key]
		seen[key]++
		mu.Unlock()
		for _, h := range habits {
			if hashOf(seed, h, r, try)%2 != 0 {
				continue
			}
			switch h {
			case IgnoresTemplate:
				reply.Text = prose(reply.Text)
			case CitesOutOfRange:
				reply.Text = outOfRange(reply.Text)
			case Markdown:
				reply.Text = markdown(reply.Text)
			case Repeats:
				reply.Text = strings.Repeat(reply.Text+"\n", 2) + reply.Text
			case StopsMidTag:
				reply.Text, reply.FinishReason = midTag(reply.Text), "length"
			}
			reply.Deltas = nil
		}
		return reply
	}
}

// hashOf hashes the seed, the habit, r's messages and the try.
func hashOf(seed uint64, h Habit, r ChatRequest, try int) uint64 {
	f := fnv.New64a()
	fmt.Fprintf(f, "%d\x00%s\x00%d", seed, h, try)
	for _, m := range r.Messages {
		fmt.Fprintf(f, "\x00%s\x00%s", m.Role, m.Content)
	}
	return f.Sum64()
}

var (
	tagsRE     = regexp.MustCompile(`</?[A-Za-z][^<>]*>`)
	bracketsRE = regexp.MustCompile(`\[[\d\s,-]+\]`)
	labelsRE   = regexp.MustCompile(`(?im)^\s*(#+\s*)?[A-Za-z][A-Za-z -]{0,30}:\s*|#+`)
	citeNumRE  = regexp.MustCompile(`\[(\d+)(?:-(\d+))?\]`)
	stmtRE     = regexp.MustCompile(`(?s)<statement>(.*?)<cite>`)
)

// prose is text as a model that ignored the template writes it.
func prose(text string) string {
	t := tagsRE.ReplaceAllString(text, " ")
	t = bracketsRE.ReplaceAllString(t, "")
	t = labelsRE.ReplaceAllString(t, "")
	t = strings.NewReplacer("{", "", "}", "", `"`, "").Replace(t)
	t = strings.Join(strings.Fields(t), " ")
	return "**Answer:**\n\nSure! Here is what I found. " + t
}

// outOfRange moves every cited number up by OutOfRangeShift.
func outOfRange(text string) string {
	return citeNumRE.ReplaceAllStringFunc(text, func(m string) string {
		sub := citeNumRE.FindStringSubmatch(m)
		a, _ := strconv.Atoi(sub[1])
		if sub[2] == "" {
			return fmt.Sprintf("[%d]", a+OutOfRangeShift)
		}
		b, _ := strconv.Atoi(sub[2])
		return fmt.Sprintf("[%d-%d]", a+OutOfRangeShift, b+OutOfRangeShift)
	})
}

// markdown fences the reply and makes each statement a bold list item.
func markdown(text string) string {
	t := stmtRE.ReplaceAllString(text, "\n- <statement>**$1**<cite>")
	return "```markdown\n" + strings.TrimLeft(t, "\n") + "\n```"
}

// midTag cuts text inside its last tag, or halfway when it has none.
func midTag(text string) string {
	if i := strings.LastIndexByte(text, '<'); i >= 0 && i+3 < len(text) {
		return text[:i+3]
	}
	cut := len(text) / 2
	for cut > 0 && cut < len(text) && text[cut]&0xC0 == 0x80 {
		cut--
	}
	return text[:cut]
}
