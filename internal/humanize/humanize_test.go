package humanize

import (
	"testing"
	"time"
)

func TestBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 2048: "2.0 KB", 7 * 1024: "7.0 KB",
		82 * 1024: "82 KB", 1024*1024 - 20: "1.0 MB", 6_500_000: "6.2 MB", 1 << 30: "1.0 GB",
		10*1024 - 1: "10 KB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCountPluralTokens(t *testing.T) {
	t.Parallel()
	cases := []struct{ got, want string }{
		{Count(0), "0"}, {Count(999), "999"}, {Count(9870), "9,870"}, {Count(-1234567), "-1,234,567"},
		{Plural(1, "chunk", "chunks"), "1 chunk"}, {Plural(1204, "summary", "summaries"), "1,204 summaries"},
		{Plural(0, "file", "files"), "0 files"}, {Noun(2, "retry", "retries"), "retries"},
		{Tokens(850), "850"}, {Tokens(12_400), "12k"}, {Tokens(12_500), "13k"}, {Tokens(1000), "1k"}, {Tokens(999_499), "999k"}, {Tokens(999_500), "1.0M"}, {Tokens(1_400_000), "1.4M"},
		{Wait(7 * time.Second), "7 s"}, {Wait(125 * time.Second), "2 min 5 s"}, {Wait(3780 * time.Second), "1 h 3 min"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
