package docstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"

	"github.com/citelens/citelens/storage"
)

// readDocument reads document id whole — metadata, text, layout and
// compounds — and validates it (decodeDocument). The result owns its
// memory.
func readDocument(tx storage.Tx, id DocID) (*Document, error) {
	info := tx.Bucket(bucketDocs).Get([]byte(id))
	if info == nil {
		return nil, errorf(ErrNotFound, "no document %s in the library", id)
	}
	rec, ok, err := readRecord(tx, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, damaged("document %s has no index record", id)
	}
	var parts docParts
	parts.info = info
	size := 0
	if v := tx.Bucket(bucketListing).Get(numKey(rec.num)); v != nil {
		if e, err := decodeListEntry(rec.num, v); err == nil {
			size = e.Bytes
		}
	}
	if parts.text, err = readText(tx, rec.num, size); err != nil {
		return nil, damaged("document %s's text %v", id, err)
	}
	b := tx.Bucket(bucketLayout)
	parts.header = b.Get(pieceKey(rec.num, tagHeader, 0))
	c := b.Cursor()
	for _, tag := range []byte{tagSentences, tagChunks} {
		prefix := append(numKey(rec.num), tag)
		i := uint32(0)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if len(k) != 9 || binary.BigEndian.Uint32(k[5:]) != i {
				return nil, damaged("document %s's layout record has a piece missing or out of place", id)
			}
			i++
			if tag == tagSentences {
				parts.sents = append(parts.sents, v)
			} else {
				parts.chunks = append(parts.chunks, v)
			}
		}
	}
	prefix := append(numKey(rec.num), tagCompound)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if parts.compounds == nil {
			parts.compounds = map[string][]string{}
		}
		parts.compounds[string(k[len(prefix):])] = strings.Split(string(v), "\x00")
	}
	return decodeDocument(id, &parts)
}

// docParts are a document's records as stored.
type docParts struct {
	info, header  []byte
	text          string
	sents, chunks [][]byte // pieces, in order
	compounds     map[string][]string
}

// decodeDocument decodes a document's records and validates them
// (validate.go): whatever they hold, the result is an error or a document
// whose every accessor works.
func decodeDocument(id DocID, p *docParts) (*Document, error) {
	d := &Document{}
	if err := json.Unmarshal(p.info, &d.DocInfo); err != nil {
		return nil, damaged("document %s's metadata record does not decode", id)
	}
	if d.ID != id {
		return nil, damaged("document %s's metadata record is document %q's", id, d.ID)
	}
	d.Text = p.text
	if err := decodeLayoutParts(p, d); err != nil {
		return nil, damaged("document %s's layout record is cut short or malformed", id)
	}
	d.Compounds = p.compounds
	if err := validateLayout(d); err != nil {
		return nil, damaged("document %s's layout record %v", id, err)
	}
	if err := validateCounts(d); err != nil {
		return nil, damaged("document %s's metadata %v", id, err)
	}
	return d, nil
}

// errPieces is the damage of a record stored in pieces with one missing.
type errPieces string

func (e errPieces) Error() string { return string(e) }

// readText reads version num's text whole; size is its expected length,
// to allocate once (a wrong one is only slower).
func readText(tx storage.Tx, num DocNum, size int) (string, error) {
	prefix := numKey(num)
	c := tx.Bucket(bucketText).Cursor()
	k, v := c.Seek(prefix)
	if len(k) == 8 && bytes.HasPrefix(k, prefix) && binary.BigEndian.Uint32(k[4:]) == 0 && len(v) < textPiece {
		return string(v), nil // the whole text, a piece
	}
	var b strings.Builder
	b.Grow(max(size, 0))
	i := uint32(0)
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(k) != 8 || binary.BigEndian.Uint32(k[4:]) != i {
			return "", errPieces("record has a piece missing or out of place")
		}
		b.Write(v)
		i++
	}
	if i == 0 {
		return "", errPieces("record is missing")
	}
	return b.String(), nil
}

// decodeLayoutParts decodes the header, sentence and chunk pieces into d.
func decodeLayoutParts(p *docParts, d *Document) error {
	if p.header == nil {
		return ErrCorrupt
	}
	h, err := decodeHeader(p.header)
	if err != nil {
		return err
	}
	d.PageStarts, d.Sections, d.Tables = h.pageStarts, h.sections, h.tables
	if h.sents > len(p.sents)*sentPiece || h.chunks > len(p.chunks)*chunkPiece {
		return ErrCorrupt
	}
	d.Sentences = make([]Sentence, 0, h.sents)
	d.Chunks = make([]Chunk, 0, h.chunks)
	for _, v := range p.sents {
		if d.Sentences, err = decodeSentences(d.Sentences, v); err != nil {
			return err
		}
	}
	for _, v := range p.chunks {
		if d.Chunks, err = decodeChunks(d.Chunks, v); err != nil {
			return err
		}
	}
	if len(d.Sentences) != h.sents || len(d.Chunks) != h.chunks {
		return ErrCorrupt
	}
	return nil
}

// readInfo reads document id's metadata; ok is false when there is none.
func readInfo(tx storage.Tx, id DocID) (info DocInfo, ok bool, err error) {
	v := tx.Bucket(bucketDocs).Get([]byte(id))
	if v == nil {
		return info, false, nil
	}
	if err := json.Unmarshal(v, &info); err != nil {
		return info, true, damaged("document %s's metadata record does not decode", id)
	}
	return info, true, nil
}
