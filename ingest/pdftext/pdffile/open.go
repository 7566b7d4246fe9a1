package pdffile

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ledongthuc/pdf"
)

// A File is a PDF opened for reading through the library.
type File struct {
	rd      *pdf.Reader
	ctx     context.Context
	size    int64
	content func() []byte // the file read, for saying where damage is
	flat    bool          // read through a flattened copy
	// Warnings say what was done about damage a reader should know of,
	// one sentence each.
	Warnings []string
}

// Open opens the PDF in r, size bytes long. ctx bounds the File's whole
// use: once it is done, every read the library makes from the file
// panics with ctx's error, so that work in progress stops (see Fault).
// Errors wrap ErrEncrypted or ErrMalformed (a *Damage), or are ctx's.
func Open(ctx context.Context, r io.ReaderAt, size int64) (*File, error) {
	return open(ctx, newSource(r, size))
}

// Rebuild opens the PDF in r with its cross-reference table rebuilt from
// the objects found in the file, as viewers read a damaged file: for a
// file Open refuses as malformed, or whose pages find objects missing
// (Damage.Structural). Its Warnings say so.
func Rebuild(ctx context.Context, r io.ReaderAt, size int64) (*File, error) {
	src := newSource(r, size)
	data := src.content()
	if data == nil {
		return nil, damage(-1, "it is too large to repair")
	}
	rebuilt, err := rebuildXref(ctx, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, damage(-1, err.Error())
	}
	f, err := open(ctx, bytesSource(rebuilt))
	if err != nil {
		return nil, err
	}
	f.Warnings = append([]string{"the file is damaged; its cross-reference table was rebuilt"}, f.Warnings...)
	return f, nil
}

// Trailer is the trailer dictionary the library keeps (the newest).
func (f *File) Trailer() pdf.Value { return f.rd.Trailer() }

// Size is the file's size in bytes as read (without anything after its
// last %%EOF).
func (f *File) Size() int64 { return f.size }

// Fault says what the library reported, a value recovered from its
// panic or an error it returned, as a *Damage in a reader's words, at
// the byte of the file it is about where the message tells. The
// context's errors (what a read panics with once ctx is done) are
// returned as they are.
func (f *File) Fault(x any) error {
	if err, ok := x.(error); ok && f.ctx.Err() != nil && errors.Is(err, f.ctx.Err()) {
		return err
	}
	return describe(x, f.content())
}

// Fault is File.Fault for a failure with no file to place it in.
func Fault(x any) error { return describe(x, nil) }

// Phrase says what the library reported while reading decoded data (a
// page's content, a font program) in a reader's words, without a place:
// the offsets in such reports are not the file's.
func Phrase(x any) string {
	var d *Damage
	if errors.As(describe(x, nil), &d) {
		return d.What
	}
	return "it was interrupted"
}

// open opens the file src: it walks the cross-reference chain and cuts a
// loop in it, opens the file with the library, decrypts what the library
// cannot, checks the object streams and reads through a flattened copy
// where it can.
func open(ctx context.Context, src *source) (f *File, err error) {
	defer func() {
		if x := recover(); x != nil {
			f, err = nil, describe(x, src.content())
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f = &File{ctx: ctx, size: src.size, content: src.content}
	c, err := readXref(ctx, src)
	if err == nil {
		err = c.check()
	}
	if err != nil {
		return nil, err
	}
	if c != nil && c.loop[1] > 0 {
		src = src.blank(c.loop[0], c.loop[1])
		f.content = src.content
		f.Warnings = append(f.Warnings, "its cross-reference sections point back at one another; each was read once")
	}
	rd, err := openReader(ctx, src.r, src.size)
	if err != nil && c.encrypted() && c.complete && ctx.Err() == nil && !errors.Is(err, pdf.ErrInvalidPassword) {
		// AES-256, which the library cannot decrypt: without a user
		// password it can be decrypted here
		plain, derr := []byte(nil), errNotAES256
		if data := src.content(); data != nil {
			plain, derr = decryptAES256(ctx, data, c)
		}
		switch {
		case derr == nil:
			g, err := open(ctx, bytesSource(plain))
			if err != nil {
				return nil, err
			}
			g.Warnings = append(f.Warnings, g.Warnings...)
			return g, nil
		case errors.Is(derr, errPassword):
			err = pdf.ErrInvalidPassword
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			return nil, fmt.Errorf("%w with a method this reader does not support (%s); save a decrypted copy first (qpdf --decrypt in.pdf out.pdf)", ErrEncrypted, plainWords(err.Error()))
		}
	}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, pdf.ErrInvalidPassword):
		return nil, fmt.Errorf("%w: it needs a password; save a decrypted copy first (qpdf --password=PASSWORD --decrypt in.pdf out.pdf)", ErrEncrypted)
	default:
		return nil, describe(err, f.content())
	}
	if c == nil || !c.complete {
		// the library reads (more of) a chain than this package can: what
		// it would do with the file's object streams is not known
		return nil, damage(-1, "its cross-reference table is missing or damaged")
	}
	keep := !c.encrypted() && src.size <= maxFlatBytes
	stms, err := checkObjStms(ctx, src, c, keep)
	if err != nil {
		return nil, err
	}
	if keep && len(stms) > 0 {
		if flat := flatten(ctx, src, rd.Trailer(), stms); flat != nil {
			rd, f.flat = flat, true // packed objects are read without decoding their stream for each
		}
	}
	f.rd = rd
	return f, nil
}
