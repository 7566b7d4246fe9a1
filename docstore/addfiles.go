package docstore

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Adding files: each is read, extracted, segmented and indexed on its
// own (on as many cores as AddOptions.Jobs allows), and one writer writes
// them, in the order given, several documents to a transaction. A
// transaction holds whole documents only, so a crash leaves each document
// either whole or absent; batching spares the many small files of a
// folder a transaction (and a sync to disk) each. A large text file is
// streamed instead (stream.go): read, indexed and written a piece at a
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
	Info DocInfo
	// Existed reports that the library had the content already (Info is
	// that document's).
	Existed bool
	Err     error
	// Seconds is the time from the start of the file's reading to its
	// document's commit.
	Seconds float64
}

// Add ingests the file at path: it reads it, extracts its text, segments,
// chunks and indexes it, and writes it so that a crash leaves either the
// whole document or none of it. Adding content already in the library
// writes nothing and returns the existing document with existed set.
// progress may be nil.
func (l *Library) Add(ctx context.Context, path string, progress func(Progress)) (info DocInfo, existed bool, err error) {
	var res AddResult
	err = l.AddFiles(ctx, []string{path}, AddOptions{Jobs: 1, Progress: progress, Done: func(r AddResult) { res = r }})
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
	doc    *Document
	ix     *indexed
	stream *streamSource // a large text, to stream instead
}

// AddFiles adds the files at paths (see Add), reading and indexing up to
// opt.Jobs at once, writing several documents a transaction. A file that
// fails is reported through opt.Done and the others go on; the returned
// error is for what stops the whole run: ctx cancelled, or the library
// unwritable. Documents committed before a cancellation stay.
func (l *Library) AddFiles(ctx context.Context, paths []string, opt AddOptions) error {
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
				outs[i] <- l.prepare(ctx, paths[i], func(stage string, done, total int) { report(paths[i], stage, done, total) })
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
		for _, p := range batch {
			if p.doc != nil {
				report(p.res.Path, StageWriting, 0, 0)
			}
		}
		err := l.writeBatch(batch)
		for _, p := range batch {
			if err != nil && p.doc != nil {
				p.res.Err = err
			}
			l.finish(p, opt.Done)
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
		var p *prepared
		for p == nil {
			var due <-chan time.Time
			if len(batch) > 0 {
				due = wait.C
			}
			select {
			case p = <-outs[i]:
			case <-due:
				if err := flush(); err != nil && !errors.Is(err, ErrLocked) {
					return err
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		<-window
		switch {
		case p.stream != nil:
			if err := flush(); err != nil && !errors.Is(err, ErrLocked) {
				return err
			}
			p.res.Info, p.res.Existed, p.res.Err = l.addStream(ctx, p.stream, func(stage string, done, total int) {
				report(p.res.Path, stage, done, total)
			})
			l.finish(p, opt.Done)
		case p.doc != nil:
			if len(batch) == 0 {
				wait.Reset(batchWait)
			}
			batch = append(batch, p)
			size += len(p.doc.Text)
			if len(batch) >= batchDocs || size >= batchBytes {
				if err := flush(); err != nil && !errors.Is(err, ErrLocked) {
					return err
				}
			}
		case len(batch) > 0:
			batch = append(batch, p) // reported in its turn, after those before it
		default:
			l.finish(p, opt.Done)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := flush(); err != nil && !errors.Is(err, ErrLocked) {
		return err
	}
	// What a process that died left behind goes now, and segments are
	// merged.
	if err := l.collect(); err != nil {
		return err
	}
	return l.merge()
}

// finish reports a file's result.
func (l *Library) finish(p *prepared, done func(AddResult)) {
	p.res.Seconds = time.Since(p.start).Seconds()
	p.doc, p.ix = nil, nil
	if done != nil {
		done(p.res)
	}
}

// prepare reads, extracts, segments and indexes one file, or finds it
// in the library already, or finds it should be streamed.
func (l *Library) prepare(ctx context.Context, path string, report func(stage string, done, total int)) *prepared {
	p := &prepared{res: AddResult{Path: path}, start: time.Now()}
	if err := ctx.Err(); err != nil {
		p.res.Err = err
		return p
	}
	report(StageReading, 0, 0)
	if src, err := l.streamable(path); err != nil || src != nil {
		p.stream, p.res.Err = src, err
		return p
	}
	l.prepareWhole(ctx, p, report)
	return p
}

// prepareWhole reads, loads and indexes p's file whole, filling p.doc
// and p.ix, or p.res when the library has it already or it fails.
func (l *Library) prepareWhole(ctx context.Context, p *prepared, report func(stage string, done, total int)) {
	content, err := readDocumentFile(ctx, p.res.Path, l.maxFile)
	if err != nil {
		p.res.Err = err
		return
	}
	id := IDFor(content)
	if info, err := l.Info(id); err == nil {
		p.res.Info, p.res.Existed = info, true
		return
	}
	if err := l.db.refusal(); err != nil {
		p.res.Err = err // damaged: refuse now, not after extracting
		return
	}
	doc, err := Load(ctx, p.res.Path, content, l.loadOptions(report))
	if err != nil {
		p.res.Err = err
		return
	}
	report(StageIndexing, 0, 0)
	p.ix = buildIndex(doc).compile([numFields]uint32{})
	if err := ctx.Err(); err != nil {
		p.res.Err = err
		return
	}
	p.doc = doc
	p.res.Info = doc.DocInfo
}

// writeBatch writes prepared documents in one transaction. A document
// whose content the library already has (added meanwhile by another
// process, or twice in the batch) is reported as existing.
func (l *Library) writeBatch(batch []*prepared) error {
	return l.db.Update(func(tx *bolt.Tx) error {
		pb := &postingBatch{}
		var nums []DocNum
		for _, p := range batch {
			if p.doc == nil {
				continue // failed, or in the library already
			}
			p.res.Existed = false
			if info, ok, err := readInfo(tx, p.doc.ID); ok || err != nil {
				p.res.Info, p.res.Existed = info, true
				if err != nil {
					return err
				}
				continue
			}
			num, err := writeWhole(tx, p.doc, p.ix, pb)
			if err != nil {
				return err
			}
			nums = append(nums, num)
		}
		if len(nums) == 0 {
			return nil
		}
		s, err := newSegment(tx, segActive)
		if err != nil {
			return err
		}
		return writeBatchSegment(tx, s, pb, nums, segActive)
	})
}

// writeWhole writes a loaded document and its index (through pb, which
// the caller writes in the same transaction) and publishes it.
func writeWhole(tx *bolt.Tx, d *Document, ix *indexed, pb *postingBatch) (DocNum, error) {
	num, err := nextDocNum(tx)
	if err != nil {
		return 0, err
	}
	w := newDocWrite(d.ID, num)
	if err := w.writeContent(tx, d, ix, pb); err != nil {
		return 0, err
	}
	return num, w.publish(tx, d)
}

// writeContent writes d's text, sentences, chunks, compounds and index.
func (w *docWrite) writeContent(tx *bolt.Tx, d *Document, ix *indexed, pb *postingBatch) error {
	if err := w.addText(tx, d.Text); err != nil {
		return err
	}
	if err := w.addSentences(tx, d.Sentences); err != nil {
		return err
	}
	if err := w.addChunks(tx, d.Chunks); err != nil {
		return err
	}
	if err := w.addCompounds(tx, d.Compounds); err != nil {
		return err
	}
	w.addIndex(ix, pb)
	return nil
}

// put writes a loaded document (indexing it) unless the library has its
// content already.
func (l *Library) put(d *Document) error {
	if err := l.writeBatch([]*prepared{{doc: d, ix: buildIndex(d).compile([numFields]uint32{})}}); err != nil {
		return err
	}
	return l.merge()
}
