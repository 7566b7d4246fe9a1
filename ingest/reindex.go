package ingest

import (
	"context"
	"fmt"
	"os"

	"github.com/citelens/citelens/docstore"
)

// ReindexProgress reports Reindex's progress: documents done of total, and
// the one being rebuilt.
type ReindexProgress struct {
	Done, Total int
	Name        string
}

// ReindexReport says how Reindex rebuilt the documents.
type ReindexReport struct {
	Documents int
	// FromFile counts documents read again from their original file
	// (unchanged, at the path they were added from, or its bytes as the
	// library keeps them), so a PDF's headings and tables come from its
	// layout; the rest were rebuilt from their stored text.
	FromFile int
}

// Reindex rebuilds every document's sentences, structure and index with
// this build's analysis, then records the current schema version. A
// document whose original file is still where it was added from, with the
// same content, is read again from it; one whose file is not on this
// disk (or has changed) from the file's bytes the library keeps, when it
// keeps them (docstore's Files); any other is rebuilt from its stored
// text, whose bytes (and so every saved citation) stay as they are. Each
// document's new version replaces the old in one transaction, so a
// reader sees one or the other. Embeddings and derived documents of a
// document whose sentences or chunks changed no longer match its layout
// and are computed again when next needed. Interrupted, it can simply be
// run again.
//
// A library of an older schema (opened with docstore's Options.Upgrade)
// is carried forward: its documents are written in this schema's records
// and the old records dropped.
func (p *Pipeline) Reindex(ctx context.Context, progress func(ReindexProgress)) (ReindexReport, error) {
	var rep ReindexReport
	rb, err := p.lib.Rebuild()
	if err != nil {
		return rep, err
	}
	infos := rb.Documents()
	for i, info := range infos {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if progress != nil {
			progress(ReindexProgress{Done: i, Total: len(infos), Name: info.Name})
		}
		fromFile, err := p.reindexOne(ctx, rb, info)
		if err != nil {
			return rep, fmt.Errorf("reindexing %s: %w", info.Name, err)
		}
		rep.Documents++
		if fromFile {
			rep.FromFile++
		}
	}
	if progress != nil {
		progress(ReindexProgress{Done: len(infos), Total: len(infos)})
	}
	return rep, rb.Finish()
}

// reindexOne rebuilds one document, from its file when unchanged, and
// replaces its version with the new one.
func (p *Pipeline) reindexOne(ctx context.Context, rb *docstore.Rebuild, info docstore.DocInfo) (fromFile bool, err error) {
	var d *docstore.Document
	var geometry [][]byte
	content, err := os.ReadFile(info.Path)
	onDisk := err == nil && docstore.IDFor(content) == info.ID
	if !onDisk {
		// Not on this disk, or not the file that was added: the bytes the
		// library kept are (they are what was cited).
		// A stored file that cannot be read (damaged) leaves the stored
		// text to rebuild from, as a missing one does.
		var stored bool
		if content, stored, err = p.lib.Files().Original(info.ID); err != nil || !stored {
			content = nil
		}
	}
	if content != nil {
		if loaded, err := Load(ctx, info.Path, content, p.loadOptions(nil)); err == nil {
			d, geometry, fromFile = loaded.Document, loaded.Geometry, true
			if onDisk && info.File == nil && p.lib.Files().Keeps() {
				d.Original = content // a library that keeps files gets this one's now
			}
		}
	}
	if d == nil {
		if d, err = rb.Stored(info); err != nil {
			return false, err
		}
		Split(d)
		if len(d.Sentences) == 0 {
			return false, fmt.Errorf("%w to index", ErrEmpty)
		}
	}
	// What the user knows the document by stays.
	d.ID, d.Name, d.Path, d.Added = info.ID, info.Name, info.Path, info.Added
	d.AddedBy = info.AddedBy
	if d.Original == nil {
		d.File = info.File // kept as it was
	}
	if info.Title != "" {
		d.Title = info.Title
	}
	prep, err := docstore.Prepare(d, geometry)
	if err != nil {
		return false, err
	}
	// Rebuilt from its stored text, it keeps its geometry.
	return fromFile, rb.Replace(prep, !fromFile)
}
