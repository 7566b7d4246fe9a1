// Package humanize writes numbers the way citelens shows them to people:
// sizes, counts with the noun that agrees, token counts, waiting times.
// Every front end (the command line, the terminal UI, exports, the MCP
// server) says a number through here, so one size never reads "2.0 KB" in
// one place and "2 kB" in another.
package humanize

import (
	"fmt"
	"strconv"
	"time"
)

// Bytes writes a byte count as people read file sizes, in powers of 1024
// with one decimal under ten: "512 B", "2.0 KB", "82 KB", "6.2 MB",
// "1.0 GB".
func Bytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, unit := float64(n)/1024, 0
	for v >= 1024 && unit < 4 {
		v /= 1024
		unit++
	}
	// Round first, so 1023.96 KB reads "1.0 MB" and not "1024 KB".
	if r := roundTo(v, 1); r < 10 {
		return fmt.Sprintf("%.1f %cB", r, "KMGTP"[unit])
	} else if r := roundTo(v, 0); r < 1024 || unit == 4 {
		return fmt.Sprintf("%.0f %cB", r, "KMGTP"[unit])
	}
	return fmt.Sprintf("1.0 %cB", "KMGTP"[unit+1])
}

func roundTo(v float64, decimals int) float64 {
	if decimals == 0 {
		return float64(int64(v + 0.5))
	}
	return float64(int64(v*10+0.5)) / 10
}

// Count writes n with thousands separators: "9,870".
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Plural writes n (with thousands separators) and the noun that agrees
// with it: Plural(1, "chunk", "chunks") is "1 chunk", Plural(1204,
// "summary", "summaries") is "1,204 summaries".
func Plural(n int, one, many string) string {
	return Count(n) + " " + Noun(n, one, many)
}

// Noun is the noun that agrees with n, without the number: Noun(2,
// "retry", "retries") is "retries".
func Noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Tokens writes a token count briefly: "850", "12k", "1.4M".
func Tokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 999_500:
		return strconv.Itoa((n+500)/1000) + "k"
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// Wait writes a waiting time as people say it, to the second: "7 s",
// "2 min 5 s", "1 h 3 min".
func Wait(d time.Duration) string {
	s := int(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %d min", s/3600, s%3600/60)
}
