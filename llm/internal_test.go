package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestBackoffCeilings(t *testing.T) {
	t.Parallel()
	c := &Client{maxRetries: MaxRetries}
	e := &Error{Kind: ErrServer, Status: 500}
	for n, ceiling := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second} {
		var top time.Duration
		for range 2000 {
			d, ok := c.backoff(e, n, nil)
			if !ok || d < 0 || d > ceiling {
				t.Fatalf("retry %d: wait %v (ok %v), ceiling %v", n, d, ok, ceiling)
			}
			top = max(top, d)
		}
		if top < ceiling*3/4 {
			t.Fatalf("retry %d: waits never near the ceiling %v (max %v): not jittered over the full range", n, ceiling, top)
		}
	}
	if _, ok := c.backoff(e, MaxRetries, nil); ok {
		t.Fatal("retried past MaxRetries")
	}
	c.maxRetries = 10
	if d, _ := c.backoff(e, 9, nil); d > backoffCap {
		t.Fatalf("wait %v above the cap", d)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond, true},
		{http.Header{"Retry-After": {"Sat, 01 Mar 2025 12:00:10 GMT"}}, 10 * time.Second, true},
		{http.Header{"Retry-After": {"Sat, 01 Mar 2025 11:00:00 GMT"}}, 0, true},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {"-4"}}, 0, false},
		{nil, 0, false},
	} {
		d, ok := retryAfter(tc.h, now)
		if d != tc.want || ok != tc.ok {
			t.Errorf("%v: %v %v, want %v %v", tc.h, d, ok, tc.want, tc.ok)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "1.5", "Sat, 01 Mar 2025 12:00:10 GMT", "", "-1", "1e308", "NaN", "Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := retryAfter(http.Header{"Retry-After": {v}}, time.Now())
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("%q: %v %v", v, d, ok)
		}
	})
}

func TestScrub(t *testing.T) {
	t.Parallel()
	got := scrub("key sk-abc\x1b[31m in\nmessage", "sk-abc")
	if got != "key [redacted]␛[31m in message" {
		t.Fatalf("%q", got)
	}
	long := scrub(string(make([]byte, 1000)), "")
	if len(long) > 310 {
		t.Fatal(len(long))
	}
}
