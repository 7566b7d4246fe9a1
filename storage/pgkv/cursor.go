package pgkv

import (
	"bytes"
	"slices"
	"sort"

	"github.com/citelens/citelens/storage"
)

// A cursor reads a page of keys at a time. Its first page is short, for
// a Seek that wants one key or a few; each page after it in the same
// walk is twice as long, up to maxPage rows, while pages stay under
// growUnder bytes, so a long scan costs a round trip per few thousand
// keys and a scan of large values holds no more than a few megabytes.
const (
	firstPage = 32
	maxPage   = 4096
	growUnder = 1 << 20
)

// entry is a key and its value (nil for a nested bucket).
type entry struct{ k, v []byte }

// cursor walks a bucket in byte order, as bbolt's does: a move past
// either end returns nil and leaves the cursor on the end key, and a
// Seek past the last key leaves it after it, where Prev finds the last.
type cursor struct {
	b     *bucket
	limit int // rows the next read fetches

	// page is a run of the bucket's keys in order, with none missing
	// between its first and last, read when the bucket's write count
	// was gen; atFirst and atLast say no key comes before or after it.
	page            []entry
	gen             uint64
	valid           bool
	atFirst, atLast bool

	// key is where the cursor is: on it (on), or, when it is not in the
	// bucket (the cursor's Delete removed it, or a Seek found nothing at
	// or after it), in the gap where it would be. nil: nowhere yet.
	key []byte
	on  bool
	// pos is, while the page is fresh, key's index in it, or the index
	// of the first key after the gap.
	pos int
}

var _ storage.Cursor = (*cursor)(nil)

// fresh reports whether the page is what the bucket holds now.
func (c *cursor) fresh() bool {
	return c.valid && c.gen == c.b.tx.gens[c.b.st.id]
}

// land puts the cursor on the page's key i and returns it.
func (c *cursor) land(i int) ([]byte, []byte) {
	c.pos, c.on, c.key = i, true, c.page[i].k
	return c.page[i].k, c.page[i].v
}

// First moves to the bucket's first key.
func (c *cursor) First() ([]byte, []byte) {
	if c.fresh() && c.atFirst {
		return c.land(0)
	}
	return c.read(qFrom, []byte{}, true)
}

// Last moves to the bucket's last key.
func (c *cursor) Last() ([]byte, []byte) {
	if c.fresh() && c.atLast {
		return c.land(len(c.page) - 1)
	}
	rows, more := c.fetch(qLast, nil)
	if len(rows) == 0 {
		return nil, nil
	}
	slices.Reverse(rows)
	c.setPage(rows, !more, true)
	return c.land(len(rows) - 1)
}

// Seek moves to the first key at or after seek.
func (c *cursor) Seek(seek []byte) ([]byte, []byte) {
	if c.fresh() {
		n := len(c.page)
		if bytes.Compare(seek, c.page[n-1].k) <= 0 && (c.atFirst || bytes.Compare(seek, c.page[0].k) >= 0) {
			return c.land(sort.Search(n, func(i int) bool { return bytes.Compare(c.page[i].k, seek) >= 0 }))
		}
		if c.atLast && bytes.Compare(seek, c.page[n-1].k) > 0 {
			c.gapAt(seek, n)
			return nil, nil
		}
	}
	return c.read(qFrom, seek, len(seek) == 0)
}

// read fetches a page from seek on and lands on its first key; none
// leaves the cursor in the gap at seek.
func (c *cursor) read(q string, seek []byte, fromStart bool) ([]byte, []byte) {
	rows, more := c.fetch(q, seek)
	if len(rows) == 0 {
		c.valid = false
		c.gapAt(seek, 0)
		return nil, nil
	}
	c.setPage(rows, fromStart, !more)
	return c.land(0)
}

// gapAt leaves the cursor in the gap at key, before the page's key i.
func (c *cursor) gapAt(key []byte, i int) {
	c.key, c.on, c.pos = append([]byte{}, key...), false, i // not nil: placed
}

// Next moves to the key after the cursor's.
func (c *cursor) Next() ([]byte, []byte) {
	if c.key == nil {
		return nil, nil
	}
	if c.fresh() {
		i := c.pos
		if c.on {
			i++
		}
		if i < len(c.page) {
			return c.land(i)
		}
		if c.atLast {
			return nil, nil
		}
	}
	q := qAfter
	if !c.on {
		q = qFrom // the gap's key is not there (or was not)
	}
	wasFresh := c.fresh()
	rows, more := c.fetch(q, c.key)
	if len(rows) == 0 {
		c.atLast = c.atLast || wasFresh
		return nil, nil
	}
	c.setPage(rows, false, !more)
	return c.land(0)
}

// Prev moves to the key before the cursor's.
func (c *cursor) Prev() ([]byte, []byte) {
	if c.key == nil {
		return nil, nil
	}
	if c.fresh() {
		if c.pos > 0 {
			return c.land(c.pos - 1)
		}
		if c.atFirst {
			return nil, nil
		}
	}
	wasFresh := c.fresh()
	rows, more := c.fetch(qBefore, c.key)
	if len(rows) == 0 {
		c.atFirst = c.atFirst || wasFresh
		return nil, nil
	}
	slices.Reverse(rows)
	c.setPage(rows, !more, false)
	return c.land(len(rows) - 1)
}

// Delete removes the key the cursor is on; the cursor stays in its gap,
// so Next finds the key after it and Prev the one before.
func (c *cursor) Delete() error {
	if !c.b.tx.writable {
		return storage.ErrTxNotWritable
	}
	if !c.on {
		return nil
	}
	wasFresh := c.fresh()
	if err := c.b.Delete(c.key); err != nil {
		return err
	}
	c.on = false
	if wasFresh {
		// The page is what the bucket holds but this key: keep it.
		c.page = slices.Delete(c.page, c.pos, c.pos+1)
		c.gen = c.b.tx.gens[c.b.st.id]
		c.valid = len(c.page) > 0
	}
	return nil
}

// setPage makes rows the page.
func (c *cursor) setPage(rows []entry, atFirst, atLast bool) {
	c.page, c.atFirst, c.atLast, c.valid = rows, atFirst, atLast, true
}

// fetch runs a page's query from key (ignored by qLast) and returns its
// rows in the query's direction, copied out of pgx's buffers, one
// allocation a row, and whether more may follow; it records the
// bucket's write count and lengthens the next page.
//
// Rows come in the order of their keys' heads: a run of keys that share
// one is sorted here. The run a full page ends with may go on past it,
// when its head is a whole headLen bytes: it is left to the next read,
// or, when it fills the page, read whole.
func (c *cursor) fetch(q string, key []byte) (page []entry, more bool) {
	limit := c.limit
	if key == nil {
		key = []byte{} // pgx sends nil as NULL, which no key is at or after
	}
	args := []any{c.b.st.id, key, limit}
	if q == qLast {
		args = []any{c.b.st.id, limit}
	}
	page, size := c.query(q, limit, args...)
	more = len(page) == limit
	desc := q == qBefore || q == qLast
	if more && len(page[len(page)-1].k) >= headLen {
		cut := len(page) - 1
		for cut > 0 && sameHead(page[cut-1].k, page[cut].k) {
			cut--
		}
		if cut > 0 {
			page = page[:cut]
		} else {
			page = c.wholeRun(page[0].k, q, key, desc)
		}
	}
	sortRuns(page, desc)
	if size < growUnder && c.limit < maxPage {
		c.limit *= 2
	}
	return page, more
}

// wholeRun reads every key whose head is head's and keeps those that
// the query q from key would return.
func (c *cursor) wholeRun(head []byte, q string, key []byte, desc bool) []entry {
	run, _ := c.query(qRun, 0, c.b.st.id, head)
	keep := run[:0]
	for _, e := range run {
		cmp := bytes.Compare(e.k, key)
		if q == qFrom && cmp >= 0 || q == qAfter && cmp > 0 || q == qBefore && cmp < 0 || q == qLast {
			keep = append(keep, e)
		}
	}
	return keep
}

// sameHead reports whether a and b share their index head.
func sameHead(a, b []byte) bool {
	return len(a) >= headLen && len(b) >= headLen && bytes.Equal(a[:headLen], b[:headLen])
}

// sortRuns sorts each run of page's keys that share a head, ascending or
// (desc) descending.
func sortRuns(page []entry, desc bool) {
	for i := 0; i < len(page); {
		j := i + 1
		for j < len(page) && sameHead(page[j-1].k, page[j].k) {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(page[i:j], func(a, b entry) int {
				if desc {
					return bytes.Compare(b.k, a.k)
				}
				return bytes.Compare(a.k, b.k)
			})
		}
		i = j
	}
}

// query runs a query for keys and values and returns the rows, copied
// out of pgx's buffers, and their size in bytes; sizeHint is how many
// rows are expected.
func (c *cursor) query(q string, sizeHint int, args ...any) (page []entry, size int) {
	t := c.b.tx
	if !t.flush() {
		return nil, 0
	}
	c.gen = t.gens[c.b.st.id]
	rows, err := t.conn.Query(t.ctx, q, args...)
	if err != nil {
		t.fail("reading keys in order", err)
		return nil, 0
	}
	defer rows.Close()
	// In binary format (pgx's with prepared statements) a bytea is its
	// bytes; a connection string may ask for the text protocol, where
	// pgx decodes them.
	fd := rows.FieldDescriptions()
	binary := len(fd) == 2 && fd[0].Format == 1 && fd[1].Format == 1
	page = make([]entry, 0, min(sizeHint, 64))
	for rows.Next() {
		var e entry
		if binary {
			raw := rows.RawValues()
			buf := make([]byte, len(raw[0])+len(raw[1]))
			n := copy(buf, raw[0])
			e.k = buf[:n:n]
			if raw[1] != nil {
				copy(buf[n:], raw[1])
				e.v = buf[n:]
			}
		} else if err := rows.Scan(&e.k, &e.v); err != nil {
			t.fail("reading keys in order", err)
			return nil, 0
		}
		size += len(e.k) + len(e.v)
		page = append(page, e)
	}
	if err := rows.Err(); err != nil {
		t.fail("reading keys in order", err)
		return nil, 0
	}
	return page, size
}
