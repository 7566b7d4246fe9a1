package ingest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/citelens/citelens/docstore"
)

// Adding files: each is read, extracted, split and indexed on its own (on
// as many cores as AddOptions.Jobs allows), and one writer writes them, in
// the order given, several documents to a transaction (docstore's Write).
// A transaction holds whole documents only, so a crash leaves each
// document either whole or absent; batching spares the many small files
// of a folder a transaction (and a sync to disk) each. A large text file
// is streamed instead (stream.go): read, indexed and written a piece at a
// time, and published in a transaction of its own.

// AddOptions tune AddFiles.
type AddOptions struct {
	// Jobs is how many files are read and indexed at once (0: one per
	// CPU core).
	Jobs int
	// Progress, if set, is told how each file goes (never two calls at
	// once).
	Progress func(Progress)
	// Done, if set, is told each file's result, in the order of the
	// paths, as soon as the file and those before it are done.
	Done func(AddResult)
}

// AddResult is what became of one file of AddFiles.
type AddResult struct {
	Path string
	Info docstore.DocInfo
	// Existed reports that the library had the content already (Info is
	// that document's).
	Existed bool
	Err     error
	// Seconds is the time from the start of the file's reading to its
	// document's commit.
	Seconds float64
}

// Add ingests the file at path: it reads it, extracts its text, splits,
// chunks and indexes it, and writes it so that a crash leaves either the
// whole document or none of it. Adding content already in the library
// writes nothing and returns the existing document with existed set.
// progress may be nil.
func (p *Pipeline) Add(ctx context.Context, path string, progress func(Progress)) (info docstore.DocInfo, existed bool, err error) {
	var res AddResult
	err = p.AddFiles(ctx, []string{path}, AddOptions{Jobs: 1, Progress: progress, Done: func(r AddResult) { res = r }})
	if err == nil {
		err = res.Err
	}
	return res.Info, res.Existed, err
}

// batchDocs and batchBytes bound a transaction of AddFiles: enough small
// documents that the sync to disk is spread thin, few enough that the
// transaction's memory stays small.
const (
	batchDocs  = 512
	batchBytes = 16 << 20
	batchWait  = 500 * time.Millisecond
)

// prepared is a file made ready to write by a worker.
type prepared struct {
	res    AddResult
	start  time.Time
	doc    *docstore.Prepared // nil when it failed or the library has it
	size   int                // of its text
	stream *streamSource      // a large text, to stream instead
}

// AddFiles adds the files at paths (see Add), reading and indexing up to
// opt.Jobs at once, writing several documents a transaction. A file that
// fails is reported through opt.Done and the others go on; the returned
// error is for what stops the whole run: ctx cancelled, or the library
// unwritable. Documents committed before a cancellation stay.
func (p *Pipeline) AddFiles(ctx context.Context, paths []string, opt AddOptions) error {
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	var progressMu sync.Mutex
	report := func(path, stage string, done, total int) {
		if opt.Progress != nil {
			progressMu.Lock()
			defer progressMu.Unlock()
			unit := ""
			if stage == StageIndexing && total > 0 {
				unit = "MB" // a streamed text's
			}
			opt.Progress(Progress{Path: path, Stage: stage, Done: done, Total: total, Unit: unit})
		}
	}
	ctx, cancel := context.WithCancel(ctx)

	// Workers take files in order and hand each back on its own channel;
	// the writer reads the channels in order. The window bounds how far
	// the workers run ahead, and so the memory of prepared documents.
	window := make(chan struct{}, 2*jobs+batchDocs/8)
	outs := make([]chan *prepared, len(paths))
	for i := range outs {
		outs[i] = make(chan *prepared, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i] <- p.prepare(ctx, paths[i], func(stage string, done, total int) { report(paths[i], stage, done, total) })
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range paths {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		cancel() // the feeder and the workers stop at once
		wg.Wait()
	}()

	var batch []*prepared
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		for _, b := range batch {
			if b.doc != nil {
				report(b.res.Path, StageWriting, 0, 0)
			}
		}
		err := p.write(batch)
		for _, b := range batch {
			if err != nil && b.doc != nil {
				b.res.Err = err
			}
			finish(b, opt.Done)
		}
		batch, size = batch[:0], 0
		return err
	}
	// A batch is written when it is full, or when its first document
	// has waited batchWait for the rest (so progress shows and a slow
	// file does not hold the fast ones back).
	wait := time.NewTimer(time.Hour)
	defer wait.Stop()
	for i := range paths {
		var f *prepared
		for f == nil {
			var due <-chan time.Time
			if len(batch) > 0 {
				due = wait.C
			}
			select {
			case f = <-outs[i]:
			case <-due:
				if err := flush(); err != nil && !errors.Is(err, docstore.ErrLocked) {
					return err
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		<-window
		switch {
		case f.stream != nil:
			if err := flush(); err != nil && !errors.Is(err, docstore.ErrLocked) {
				return err
			}
			f.res.Info, f.res.Existed, f.res.Err = p.addStream(ctx, f.stream, func(stage string, done, total int) {
				report(f.res.Path, stage, done, total)
			})
			finish(f, opt.Done)
		case f.doc != nil:
			if len(batch) == 0 {
				wait.Reset(batchWait)
			}
			batch = append(batch, f)
			size += f.size
			if len(batch) >= batchDocs || size >= batchBytes {
				if err := flush(); err != nil && !errors.Is(err, docstore.ErrLocked) {
					return err
				}
			}
		case len(batch) > 0:
			batch = append(batch, f) // reported in its turn, after those before it
		default:
			finish(f, opt.Done)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := flush(); err != nil && !errors.Is(err, docstore.ErrLocked) {
		return err
	}
	// What a process that died left behind goes now, and segments are
	// merged.
	return p.lib.Tidy()
}

// finish reports a file's result.
func finish(f *prepared, done func(AddResult)) {
	f.res.Seconds = time.Since(f.start).Seconds()
	f.doc = nil
	if done != nil {
		done(f.res)
	}
}

// prepare reads, extracts, splits and indexes one file, or finds it in
// the library already, or finds it should be streamed.
func (p *Pipeline) prepare(ctx context.Context, path string, report func(stage string, done, total int)) *prepared {
	f := &prepared{res: AddResult{Path: path}, start: time.Now()}
	if err := ctx.Err(); err != nil {
		f.res.Err = err
		return f
	}
	report(StageReading, 0, 0)
	if src, err := p.streamable(path); err != nil || src != nil {
		f.stream, f.res.Err = src, err
		return f
	}
	p.prepareWhole(ctx, f, report)
	return f
}

// prepareWhole reads, loads and indexes f's file whole, filling f.doc, or
// f.res when the library has it already or it fails.
func (p *Pipeline) prepareWhole(ctx context.Context, f *prepared, report func(stage string, done, total int)) {
	content, err := readDocumentFile(ctx, f.res.Path, p.maxFile)
	if err != nil {
		f.res.Err = err
		return
	}
	id := docstore.IDFor(content)
	if info, err := p.lib.Info(id); err == nil {
		f.res.Info, f.res.Existed = info, true
		return
	}
	if err := p.lib.Damage(); err != nil {
		f.res.Err = err // damaged: refuse now, not after extracting
		return
	}
	doc, err := Load(ctx, f.res.Path, content, p.loadOptions(report))
	if err != nil {
		f.res.Err = err
		return
	}
	// A file from a path the library has a document of is its next
	// version (issue 35): the latest added from there, by the names
	// index, so this costs what the file name's documents cost.
	previous, err := p.previousVersion(doc.Path, doc.ID)
	if err != nil {
		f.res.Err = err
		return
	}
	doc.Previous = previous
	report(StageIndexing, 0, 0)
	prep, err := docstore.Prepare(doc.Document, doc.Geometry)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		f.res.Err = err
		return
	}
	f.doc, f.size = prep, len(doc.Text)
	if p.lib.Files().Keeps() {
		// The file's bytes go into the library with the document, so
		// that whoever shares it can draw its pages and reindex it; a
		// batch counts them in its size.
		doc.Original = content
		f.size += len(content)
	}
	f.res.Info = doc.DocInfo
}

// write writes the prepared documents of batch in one transaction. A
// document whose content the library already has (added meanwhile by
// another process, or twice in the batch) is reported as existing.
func (p *Pipeline) write(batch []*prepared) error {
	var docs []*docstore.Prepared
	var files []*prepared
	for _, f := range batch {
		if f.doc != nil { // not failed, nor in the library already
			docs = append(docs, f.doc)
			files = append(files, f)
		}
	}
	if len(docs) == 0 {
		return nil
	}
	written, err := p.lib.Write(docs...)
	if err != nil {
		return err
	}
	for i, w := range written {
		files[i].res.Info, files[i].res.Existed = w.Info, w.Existed
	}
	return nil
}

// previousVersion returns the document a file from path with content id
// is the next version of: the latest version of Options.NewVersionOf when
// given, else the last document added from the same path; "" for none.
func (p *Pipeline) previousVersion(path string, id docstore.DocID) (docstore.DocID, error) {
	if p.newVersionOf != "" {
		vs, err := p.lib.Versions().Of(p.newVersionOf)
		if err != nil {
			return "", fmt.Errorf("the document %s to add a version of: %w", p.newVersionOf, err)
		}
		if last := vs[len(vs)-1].ID; last != id {
			return last, nil
		}
		return "", nil
	}
	same, err := p.lib.Versions().SamePath(path)
	if err != nil {
		return "", err
	}
	if n := len(same); n > 0 && same[n-1].ID != id {
		return same[n-1].ID, nil
	}
	return "", nil
}
