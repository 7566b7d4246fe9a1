package pgkv

import "bytes"

// A read transaction that Gets many keys of one bucket in ascending
// order would pay a round trip a key: the index's reader names each
// document a query's walk meets with a Get in the listing (DocNums come
// in order), about 1,300 Gets an ask on 10,000 documents, nine round
// trips in ten of the ask's (bench/teamlib). After aheadAfter Gets in a
// row of ascending keys in one bucket, Get reads on with a cursor from
// the key asked instead: one page of the keys from there (pages that
// double, up to the cursor's limits of rows and bytes), from which the
// following Gets are answered while they stay inside it. Random or
// descending Gets never read ahead, nor do Gets of large values (a run
// whose last plain Get found more than aheadValue bytes), where a page
// of values not asked for would cost more than the round trips saved.
const (
	aheadAfter = 8
	aheadValue = 4 << 10
)

// readAhead is a bucket's run of ascending Gets in a transaction.
type readAhead struct {
	last []byte // the key of the last Get
	run  int    // Gets in a row, to last, each after the one before
	big  bool   // the last plain Get's value was larger than aheadValue
	c    *cursor
}

// getAhead answers a Get of key from the bucket's read-ahead when its
// Gets run ascending, and reports whether it did (ok false: ask the
// server for the key alone). A write transaction's Gets never read
// ahead: its reads stay the plain ones its writes are checked against.
func (b *bucket) getAhead(key []byte) (v []byte, ok bool) {
	t := b.tx
	if t.writable {
		return nil, false
	}
	ra := t.ahead[b.st.id]
	if ra == nil {
		if t.ahead == nil {
			t.ahead = map[int64]*readAhead{}
		}
		ra = &readAhead{}
		t.ahead[b.st.id] = ra
	}
	if ra.last != nil && bytes.Compare(key, ra.last) > 0 {
		ra.run++
	} else {
		ra.run = 0
	}
	ra.last = append(ra.last[:0], key...)
	if ra.run < aheadAfter || ra.big {
		return nil, false
	}
	if ra.c == nil {
		ra.c = b.cursor()
	}
	k, v := ra.c.Seek(key)
	if !bytes.Equal(k, key) {
		return nil, true // the page from key on holds no key
	}
	return v, true // nil for a nested bucket, as Get's
}

// sawValue notes the size of a value a plain Get read, which decides
// whether the bucket's run may read ahead.
func (b *bucket) sawValue(v []byte) {
	if ra := b.tx.ahead[b.st.id]; ra != nil {
		ra.big = len(v) > aheadValue
	}
}
