package llm

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A server can send the API key back inside an answer — a proxy that
// echoes the request, a model asked to repeat its input — and the answer
// is shown, saved in the library and exported. So every answer and its
// reasoning pass through a redactor before anyone sees them: the keys
// the client knows, and what has the shape of a key or a credential
// (secretRE), become "[redacted]". Error bodies are scrubbed the same way
// (scrub).
//
// Answers stream: a key may arrive split over several deltas. So the
// redactor holds back the end of what has arrived from the first place a
// secret could be starting there — a beginning of a known key, of a key
// prefix ("sk-"), of an auth scheme's word and its value — until the
// text shows it is not one or the secret is whole (it ends at white
// space), and releases everything else as it comes, so ordinary text
// streams as the server sends it.

// redactedText replaces a secret.
const redactedText = "[redacted]"

// minKeyLen is the shortest key redacted wherever it occurs: a shorter one
// would take ordinary words with it.
const minKeyLen = 8

// maxHeld bounds the unfinished word held back.
const maxHeld = 1024

// secretRE matches what looks like a credential: API keys by their
// well-known prefixes, and the value after an HTTP auth scheme.
var secretRE = regexp.MustCompile(`\b(?:` +
	`sk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{16,}` + // OpenAI, Anthropic, DeepSeek…
	`|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}` + // Stripe
	`|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}` + // GitHub
	`|glpat-[A-Za-z0-9_-]{20,}` + // GitLab
	`|xox[abprs]-[A-Za-z0-9-]{10,}` + // Slack
	`|AKIA[0-9A-Z]{16}` + // AWS
	`|AIza[0-9A-Za-z_-]{35}` + // Google
	`|hf_[A-Za-z0-9]{30,}` + // Hugging Face
	`)|(?i:\b(?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{16,}`)

// keyPrefixes are the literal beginnings of the keys secretRE knows, and
// authSchemes the words before a credential it knows (any case).
var (
	keyPrefixes = []string{"sk-", "sk_", "pk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
		"glpat-", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "AKIA", "AIza", "hf_"}
	authSchemes = []string{"bearer", "basic", "token"}
)

// redactor hides secrets in a stream of text.
type redactor struct {
	keys []string
	held string // the tail not yet released: where a secret may be starting
}

// newRedactor redacts keys (those long enough) and what looks like one.
func newRedactor(keys ...string) *redactor {
	r := &redactor{}
	for _, k := range keys {
		if k = strings.TrimSpace(k); len(k) >= minKeyLen {
			r.keys = append(r.keys, k)
		}
	}
	return r
}

// redact returns s with every secret replaced.
func (r *redactor) redact(s string) string {
	for _, k := range r.keys {
		s = strings.ReplaceAll(s, k, redactedText)
	}
	return secretRE.ReplaceAllStringFunc(s, func(m string) string {
		// keep the auth scheme's word: "Bearer [redacted]"
		if i := strings.LastIndexFunc(m, unicode.IsSpace); i >= 0 {
			return m[:i+1] + redactedText
		}
		return redactedText
	})
}

// push takes the next piece of the stream and returns what of the stream
// can be released now, redacted.
func (r *redactor) push(s string) string {
	if s == "" {
		return ""
	}
	buf := r.held + s
	cut := r.secretStart(buf)
	if len(buf)-cut > maxHeld { // not a secret after all: too long
		cut = len(buf) - maxHeld/2
		for cut > 0 && !utf8.RuneStart(buf[cut]) {
			cut--
		}
	}
	r.held = buf[cut:]
	return r.redact(buf[:cut])
}

// flush releases what is held, at the end of the stream.
func (r *redactor) flush() string {
	s := r.redact(r.held)
	r.held = ""
	return s
}

// reset forgets what is held, when the stream starts over.
func (r *redactor) reset() { r.held = "" }

// secretStart returns the first position in buf from which a secret may
// be running to its end (len(buf) if none). Only the last two words can
// hold one: a secret has no white space in it, and the value of an auth
// scheme follows its word after one run of it.
func (r *redactor) secretStart(buf string) int {
	from := len(buf)
	for spaces := 0; from > 0 && spaces < 2; {
		c, size := utf8.DecodeLastRuneInString(buf[:from])
		next, _ := utf8.DecodeRuneInString(buf[from:])
		if unicode.IsSpace(c) && (from == len(buf) || !unicode.IsSpace(next)) {
			spaces++ // the end of a run of white space
		}
		from -= size
	}
	for p := from; p < len(buf); p++ {
		if utf8.RuneStart(buf[p]) && r.couldStart(buf[p:], p == 0 || !isWordByte(buf[p-1])) {
			return p
		}
	}
	return len(buf)
}

// couldStart reports whether tail, running to the end of what arrived,
// may be the beginning of a secret or one not yet ended; atWord is set
// when it starts a word, as a key's prefix must.
func (r *redactor) couldStart(tail string, atWord bool) bool {
	for _, k := range r.keys {
		if len(tail) < len(k) && strings.HasPrefix(k, tail) {
			return true
		}
	}
	if !atWord {
		return false
	}
	unbroken := !strings.ContainsFunc(tail, unicode.IsSpace)
	for _, p := range keyPrefixes {
		if strings.HasPrefix(p, tail) || unbroken && strings.HasPrefix(tail, p) {
			return true
		}
	}
	for _, sch := range authSchemes {
		if len(tail) <= len(sch) {
			if strings.EqualFold(tail, sch[:len(tail)]) {
				return true
			}
			continue
		}
		if !strings.EqualFold(tail[:len(sch)], sch) {
			continue
		}
		// the scheme's word, white space, and a value not yet ended
		rest := strings.TrimLeftFunc(tail[len(sch):], unicode.IsSpace)
		if len(rest) < len(tail)-len(sch) && !strings.ContainsFunc(rest, unicode.IsSpace) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
