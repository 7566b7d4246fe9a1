package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/citelens/citelens/llm/llmtest"
)

// The shapes in which reasoning models send their thinking, for -think:
// each wraps the scripted model's reply in a reasoning model's habits.
var thinkShapes = []string{"closed", "bytes", "unopened", "content", "unclosed"}

// thinking is the reasoning the scripted model writes before its reply.
// It holds what must never reach an answer: a statement in LongCite's
// format, a citation, and a closing tag spelt otherwise.
const thinking = "Okay, the user asks about the document. Let me look for the sentences that answer it.\n" +
	"A draft: <statement>This reasoning is not the answer.<cite>[0-0]</cite></statement> " +
	"I should cite sentence [1] too. Right, time to answer."

// think wraps reply in the reasoning shape named:
//
//   - closed: "<think>…</think>" before the reply, streamed word by word;
//   - bytes: the same, streamed one byte per delta;
//   - unopened: only "</think>" ends the reasoning, the opening tag having
//     been written by the chat template into the prompt (DeepSeek-R1 and
//     QwQ on vLLM without a reasoning parser);
//   - content: the reasoning in reasoning_content deltas, the reply as it
//     is;
//   - unclosed: "<think>…" and nothing else, the output limit reached
//     (finish_reason "length").
//
// "" leaves the reply as it is.
func think(reply llmtest.Reply, shape string) llmtest.Reply {
	switch shape {
	case "closed", "bytes":
		reply.Text = "<think>\n" + thinking + "\n</think>\n\n" + reply.Text
		if shape == "bytes" {
			reply.ChunkSize = 1
		}
	case "unopened":
		reply.Text = thinking + "\n</think>\n\n" + reply.Text
	case "content":
		reply.Reasoning = thinking
	case "unclosed":
		reply.Text = "<Think>\n" + thinking + " Hmm, but wait"
		reply.FinishReason = "length"
	}
	return reply
}

// checkShape reports whether shape is "" or one of thinkShapes.
func checkShape(shape string) error {
	if shape != "" && !slices.Contains(thinkShapes, shape) {
		return fmt.Errorf("-think %q: the shapes are %s", shape, strings.Join(thinkShapes, ", "))
	}
	return nil
}
