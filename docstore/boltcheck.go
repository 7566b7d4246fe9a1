package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// what Inspect and Salvage do with a library file's pages, before and
// besides reading its records through the seam.

import (
	bolt "go.etcd.io/bbolt"
)

// maxPageProblems bounds the bbolt page errors Inspect lists.
const maxPageProblems = 20

// checkFile is Inspect's check of the file: its length against its
// pages, and the page walk (checkPagesAt), each problem told to add.
// unsafe is what bbolt must not read, which the reads of records then go
// around; sound is set when neither found damage; readable is false when
// the file cannot be read at all (Inspect then reads no record).
func (h *handle) checkFile(add func(problem string)) (unsafe *pageDamage, sound, readable bool) {
	fileErr := checkBoltFile(h.path)
	if fileErr != nil {
		add(trimDamaged(fileErr.Error()))
	}
	var pageErr error
	if err := h.viewAround(func(*bolt.Tx, *pageDamage) error {
		unsafe, pageErr = checkPagesAt(h.path)
		return nil
	}); err != nil {
		add("the library cannot be read: " + trimDamaged(err.Error()))
		return nil, false, false
	}
	if pageErr != nil && (fileErr == nil || trimDamaged(pageErr.Error()) != trimDamaged(fileErr.Error())) {
		add(trimDamaged(pageErr.Error()))
	}
	return unsafe, fileErr == nil && pageErr == nil, true
}

// checkTree runs bbolt's own check of the file (key order, besides the
// page accounting checkFile made), each problem told to add. It runs in
// a goroutine of its own, where a fault on a page cut off or an
// assertion would kill the process, so Inspect calls it only on a file
// checkFile found sound once the guarded walk of every record has read
// every page it will visit and found every record inside its page.
func (h *handle) checkTree(add func(problem string)) {
	_ = h.viewAround(func(tx *bolt.Tx, _ *pageDamage) error {
		n := 0
		for err := range tx.Check() {
			if n++; n > maxPageProblems {
				add("and more page errors")
				break
			}
			add("bad page: " + err.Error())
		}
		return nil
	})
}

// salvagePages is what of the file Salvage must go around: what bbolt
// must not read, found by the page walk, or the whole file when it
// cannot be read at all.
func (h *handle) salvagePages() *pageDamage {
	var unsafe *pageDamage
	if err := h.viewAround(func(*bolt.Tx, *pageDamage) error {
		unsafe, _ = checkPagesAt(h.path)
		return nil
	}); err != nil {
		return &pageDamage{err: err, broken: map[string]bool{"": true}} // nothing can be read
	}
	return unsafe
}
