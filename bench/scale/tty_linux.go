package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// firstFrame starts the terminal UI on library db in a pseudo-terminal of
// 160×48 and returns the time until its first frame shows want (the name
// of a document of the library), then ends it.
func firstFrame(bin, db string, env []string, want string) (time.Duration, error) {
	ptm, pts, err := openPTY(48, 160)
	if err != nil {
		return 0, err
	}
	defer ptm.Close()
	cmd := exec.Command(bin, "--db", db, "--theme", "dark")
	cmd.Env = append(env, "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pts.Close()
		return 0, err
	}
	pts.Close()
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	found := make(chan time.Duration, 1)
	go func() {
		var seen []byte
		buf := make([]byte, 64<<10)
		for {
			n, err := ptm.Read(buf)
			seen = append(seen, buf[:n]...)
			if bytes.Contains(seen, []byte(want)) {
				found <- time.Since(start)
				return
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case d := <-found:
		return d, nil
	case <-time.After(30 * time.Second):
		return 0, fmt.Errorf("no frame showing %q within 30 s", want)
	}
}

// openPTY opens a pseudo-terminal pair of the given size.
func openPTY(rows, cols uint16) (ptm, pts *os.File, err error) {
	ptm, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	unlock := int32(0)
	if err := ioctl(ptm, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		ptm.Close()
		return nil, nil, err
	}
	var n uint32
	if err := ioctl(ptm, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		ptm.Close()
		return nil, nil, err
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ptm.Close()
		return nil, nil, err
	}
	ws := struct{ rows, cols, x, y uint16 }{rows, cols, 0, 0}
	if err := ioctl(pts, syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		ptm.Close()
		pts.Close()
		return nil, nil, err
	}
	return ptm, pts, nil
}

func ioctl(f *os.File, req uint, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(arg)); e != 0 {
		return e
	}
	return nil
}
