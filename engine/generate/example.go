package generate

// The one-shot examples. Figure 10 of the LongCite paper shows where the
// example goes ("{An Example}") but not the example itself, so these are
// written for citelens: a short report in the paper's layout (numbered
// sentences in paragraphs, the question, the reminder, and an answer whose
// every statement carries a <cite> block, empty for the introduction and
// the summary). They show the points models most often get wrong: a range
// ("[3-5]"), several ranges in one statement, and "<cite></cite>" on
// statements that need no citation. The facts are invented, so a model
// cannot answer the real question from memory of the example.

// exampleSentences is the example document, one sentence per entry, with
// "" marking a paragraph break.
var exampleSentences = []string{
	"The Millbrook water treatment plant opened in 1962 and was expanded twice, in 1985 and in 2009.",
	"Its current capacity is 48 million litres per day, enough for roughly 160,000 residents.",
	"The plant draws most of its raw water from the Ashford Reservoir, with the remainder pumped from three groundwater wells.",
	"",
	"In the summer of 2021 the reservoir fell to 31% of capacity, its lowest level since records began.",
	"The city responded with a ban on garden watering from June to September.",
	"Daily demand dropped by 14% during the ban, according to the utility's annual report.",
	"",
	"A new membrane filtration stage is scheduled to enter service in 2026.",
	"The utility estimates its cost at 62 million dollars, two thirds of which will be covered by a state grant.",
	"Engineers expect the upgrade to raise capacity to 60 million litres per day.",
	"Construction has been delayed once, after the first tender attracted no qualified bids.",
}

const exampleQuestion = "How is the Millbrook plant preparing for future demand, and what happened during the 2021 drought?"

// lacExampleAnswer cites sentences by their "<Cn>" numbers.
const lacExampleAnswer = `<statement>The document describes both a planned upgrade of the plant and the city's response to the 2021 drought.<cite></cite></statement>
<statement>To prepare for future demand, a new membrane filtration stage is scheduled to enter service in 2026, and engineers expect it to raise capacity from 48 to 60 million litres per day.<cite>[1-1][6-6][8-8]</cite></statement>
<statement>The upgrade is estimated to cost 62 million dollars, two thirds of it covered by a state grant, and its construction has already been delayed once.<cite>[7-7][9-9]</cite></statement>
<statement>During the 2021 drought, the Ashford Reservoir fell to 31% of capacity; the city banned garden watering from June to September, and daily demand dropped by 14%.<cite>[3-5]</cite></statement>
<statement>In short, the utility is adding capacity for the long term while relying on restrictions on demand in dry years.<cite></cite></statement>`

// racExampleAnswer cites the same facts by snippet: [1] is the first
// paragraph, [2] the second, [3] the third.
const racExampleAnswer = `<statement>The document describes both a planned upgrade of the plant and the city's response to the 2021 drought.<cite></cite></statement>
<statement>To prepare for future demand, a new membrane filtration stage is scheduled to enter service in 2026, and engineers expect it to raise capacity from 48 to 60 million litres per day.<cite>[1][3]</cite></statement>
<statement>The upgrade is estimated to cost 62 million dollars, two thirds of it covered by a state grant, and its construction has already been delayed once.<cite>[3]</cite></statement>
<statement>During the 2021 drought, the Ashford Reservoir fell to 31% of capacity; the city banned garden watering from June to September, and daily demand dropped by 14%.<cite>[2]</cite></statement>
<statement>In short, the utility is adding capacity for the long term while relying on restrictions on demand in dry years.<cite></cite></statement>`

// lacExample and racExample are the whole examples, laid out exactly as
// the test case that follows them is.
var (
	lacExample = buildExample(false)
	racExample = buildExample(true)
)

func buildExample(chunks bool) string {
	var ctx []byte
	if chunks {
		ctx = append(ctx, snippetStart...)
		k := 1
		ctx = append(ctx, "Snippet [1]\n"...)
		for i, s := range exampleSentences {
			switch {
			case s == "":
				k++
				ctx = append(ctx, "\n\nSnippet ["...)
				ctx = append(ctx, byte('0'+k))
				ctx = append(ctx, "]\n"...)
				continue
			case i > 0 && exampleSentences[i-1] != "":
				ctx = append(ctx, ' ')
			}
			ctx = append(ctx, s...)
		}
		ctx = append(ctx, snippetEnd...)
	} else {
		ctx = append(ctx, docStart...)
		n := 0
		for i, s := range exampleSentences {
			switch {
			case s == "":
				ctx = append(ctx, "\n\n"...)
				continue
			case i > 0 && exampleSentences[i-1] != "":
				ctx = append(ctx, ' ')
			}
			ctx = append(ctx, "<C"...)
			ctx = append(ctx, itoa(n)...)
			ctx = append(ctx, '>')
			ctx = append(ctx, s...)
			n++
		}
		ctx = append(ctx, docEnd...)
	}
	instr, answer := lacInstructions, lacExampleAnswer
	if chunks {
		instr, answer = racInstructions, racExampleAnswer
	}
	return string(ctx) + questionMark + exampleQuestion + remindMark + instr + answerMark + answer
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
