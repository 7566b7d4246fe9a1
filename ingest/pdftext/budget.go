package pdftext

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ledongthuc/pdf"

	"github.com/citelens/citelens/ingest/pdftext/pdffile"
	"github.com/citelens/citelens/internal/humanize"
)

// Per-stream and per-page limits (limits.go) bound one page; a document
// needs its own budget too. A 114 KB file whose 200 pages all draw one
// stream that inflates to 56 MB passes every per-page limit, and used to
// cost minutes and a gigabyte before failing. docWork holds the budget of
// one extraction: bytes decoded from streams, bytes of content handed to
// the interpreter (a stream drawn on every page counts on every page), and
// content operators. Real documents stay far below it: the R manuals,
// 2,400 pages among them, decode at most 2.5 bytes of content and run
// about one operator per 7 bytes of file.
//
// It also caches decoded streams by object, so content shared between
// pages (or a font file shared by font dictionaries) is decoded once.
type docWork struct {
	fileSize                       int64
	maxDecoded, maxContent, maxOps int64
	decoded, content, ops          atomic.Int64
	over                           atomic.Pointer[string] // the first limit reached

	file *pdffile.File // the file read, for messages (nil: none)

	mu     sync.Mutex
	seen   map[string]int           // reads of each stream object
	shared map[string]*sharedStream // streams read more than once
	cached int64                    // bytes held by shared
}

type sharedStream struct {
	once sync.Once
	data []byte
	err  error
}

// Document budgets: a floor, or a multiple of the file's size for big
// files, whichever is larger.
const (
	minDocDecoded    = 256 << 20
	minDocContent    = 32 << 20
	minDocOps        = 16_000_000
	decodedPerByte   = 64
	contentPerByte   = 32
	opsPerByte       = 8
	maxCachedStreams = 256 << 20 // bytes of shared streams kept decoded
)

// errDocBudget stops the interpretation of a page when the document's
// budget is spent.
var errDocBudget = errors.New("the document exceeds its budget")

func newDocWork(fileSize int64) *docWork {
	return &docWork{
		fileSize:   fileSize,
		maxDecoded: max(minDocDecoded, decodedPerByte*fileSize),
		maxContent: max(minDocContent, contentPerByte*fileSize),
		maxOps:     max(minDocOps, opsPerByte*fileSize),
		seen:       map[string]int{},
		shared:     map[string]*sharedStream{},
	}
}

// exceeded returns what limit was reached, or "".
func (w *docWork) exceeded() string {
	if w == nil {
		return ""
	}
	if p := w.over.Load(); p != nil {
		return *p
	}
	return ""
}

// charge adds n to counter and reports whether it stays within limit;
// the first charge past any limit records why (reason).
func (w *docWork) charge(counter *atomic.Int64, n, limit int64, reason func() string) bool {
	if counter.Add(n) <= limit {
		return true
	}
	msg := reason()
	w.over.CompareAndSwap(nil, &msg)
	return false
}

// interpret charges n bytes of content about to be interpreted.
func (w *docWork) interpret(n int) bool {
	return w == nil || w.charge(&w.content, int64(n), w.maxContent, func() string {
		return fmt.Sprintf("its pages expand to more than %s of content from a %s file", humanize.Bytes(w.maxContent), humanize.Bytes(w.fileSize))
	})
}

// operators charges n content operators.
func (w *docWork) operators(n int) bool {
	return w == nil || w.charge(&w.ops, int64(n), w.maxOps, func() string {
		return fmt.Sprintf("its pages hold more than %d million drawing operators for a %s file", w.maxOps/1_000_000, humanize.Bytes(w.fileSize))
	})
}

// markShared notes stream objects known to be read more than once (page
// contents shared between pages), so that the first read already keeps
// them.
func (w *docWork) markShared(keys []string) {
	counts := map[string]int{}
	for _, k := range keys {
		counts[k]++
	}
	for k, n := range counts {
		if k != "" && n > 1 {
			w.seen[k] = max(w.seen[k], 1)
		}
	}
}

// stream returns the decoded bytes of stream v (at most limit), whose
// object is key ("id gen", or "" for a direct object). A stream read a
// second time is kept, so that it is decoded once however many pages,
// forms or fonts use it. Decoded bytes are charged to the budget; once it
// is spent, stream returns errDocBudget and no data.
func (w *docWork) stream(v pdf.Value, key string, limit int) ([]byte, error) {
	if w == nil {
		return pdffile.ReadStream(v, limit)
	}
	if w.exceeded() != "" {
		return nil, errDocBudget
	}
	if key == "" {
		return w.decode(v, limit)
	}
	w.mu.Lock()
	s := w.shared[key]
	if s == nil {
		w.seen[key]++
		if w.seen[key] > 1 && w.cached < maxCachedStreams {
			s = &sharedStream{}
			w.shared[key] = s
		}
	}
	w.mu.Unlock()
	if s == nil {
		return w.decode(v, limit)
	}
	s.once.Do(func() {
		s.data, s.err = w.decode(v, limit)
		// Pages append to what they are given: with no spare capacity,
		// an append copies instead of writing into the shared bytes.
		s.data = slices.Clip(s.data)
		w.mu.Lock()
		w.cached += int64(len(s.data))
		w.mu.Unlock()
	})
	n := min(len(s.data), limit)
	return s.data[:n:n], s.err
}

// stream reads the stream at key of dictionary parent for a font being
// loaded, through the document's budget and stream cache: a font file
// shared by many font dictionaries is decoded once. What cannot be read
// is nil.
func (f *font) stream(parent pdf.Value, key string, limit int) []byte {
	v := parent.Key(key)
	if v.Kind() != pdf.Stream {
		return nil
	}
	data, _ := f.work.stream(v, pdffile.RefKeys(parent)[key], limit)
	return data
}

// pageDamage describes a failure while reading a page, a value recovered
// from the library's panic: where in the file it is when that can be
// found (an object not where the cross-reference table says), else as
// damage to the page's content. structural reports an object not found
// where the cross-reference table puts it.
func (w *docWork) pageDamage(x any) (msg string, structural bool) {
	var d *pdffile.Damage
	switch {
	case w == nil || w.file == nil || !errors.As(w.file.Fault(x), &d): // not the file's: the context's
		return "its content is damaged (" + pdffile.Phrase(x) + ")", false
	case d.At >= 0:
		return d.Reason(), d.Structural
	}
	return "its content is damaged (" + d.What + ")", d.Structural
}

// decode reads a stream and charges its decoded bytes.
func (w *docWork) decode(v pdf.Value, limit int) ([]byte, error) {
	data, err := pdffile.ReadStream(v, limit)
	if !w.charge(&w.decoded, int64(len(data)), w.maxDecoded, func() string {
		return fmt.Sprintf("its streams inflate to more than %s from a %s file", humanize.Bytes(w.maxDecoded), humanize.Bytes(w.fileSize))
	}) {
		return nil, errDocBudget
	}
	return data, err
}

// pageContents returns the decoded content of a page: its Contents
// stream, or the streams of its Contents array joined by newlines, each
// read through the document's budget and stream cache.
func pageContents(w *docWork, p pageRef) ([]byte, error) {
	v := p.v.Key("Contents")
	if v.Kind() != pdf.Array {
		return w.stream(v, p.contents, maxStreamBytes)
	}
	refs := pdffile.ArrayRefs(v) // nil if not split reliably: read without caching
	var buf []byte
	var err error
	for i := 0; i < v.Len() && len(buf) < maxStreamBytes; i++ {
		key := ""
		if i < len(refs) {
			key = refs[i]
		}
		data, e := w.stream(v.Index(i), key, maxStreamBytes-len(buf))
		if e == errDocBudget {
			return nil, e
		}
		if e != nil && err == nil {
			err = e
		}
		buf = append(append(buf, data...), '\n')
	}
	return buf, err
}
