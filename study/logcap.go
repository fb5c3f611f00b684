package study

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// The bounds of a job's log (DIR/logs/NNNNN.log): of each attempt, it keeps the first
// maxLogHead bytes and the last maxLogTail bytes of what the job wrote, with a line between
// saying how many were dropped, so that a job that writes without end cannot fill the disk.
// While the attempt runs the file may hold up to maxLogTail more of its end.
const (
	maxLogHead = 1 << 20
	maxLogTail = 4 << 20
)

// dropWidth is the length of the line that says how many bytes of an attempt were dropped: it
// is rewritten in place as more are.
const dropWidth = 160

// dropLine is the line between the head and the tail of an attempt that wrote more than they
// hold, padded to dropWidth.
func dropLine(dropped, head, tail int64) string {
	s := fmt.Sprintf("\n[gosbi: %d bytes of this attempt's output dropped here; a job's log keeps the first %s and the last %s of each attempt]",
		dropped, byteSize(head), byteSize(tail))
	return s + strings.Repeat(" ", max(0, dropWidth-1-len(s))) + "\n"
}

// byteSize writes n bytes in MiB where it is a whole number of them.
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// cappedLog is the writer of one attempt's output to a job's log: it appends to what earlier
// attempts left, keeps the first head bytes, and of the rest the last tail bytes, after a line
// saying how many were dropped. Past head, output is written to the file as it comes; when
// more than 2*tail follow the head, the last tail bytes are moved up behind the line and the
// file is cut, so that the file holds at most head+2*tail bytes of the attempt (head+tail once
// closed) and what the job wrote last is on disk whenever it dies. It is safe for concurrent
// use.
type cappedLog struct {
	mu         sync.Mutex
	f          *os.File
	head, tail int64
	start      int64 // where the attempt's output starts in the file
	off        int64 // where the next byte goes: the end of what is kept
	rest       int64 // where the bytes past the head start: start+head, or after the drop line
	dropped    int64
	buf        []byte
}

// openCappedLog opens the log file path for a new attempt (see cappedLog).
func openCappedLog(path string, head, tail int64) (*cappedLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &cappedLog{f: f, head: head, tail: tail, start: end, off: end, rest: end + head}, nil
}

// Write writes p, keeping what the bounds allow; it reports len(p) unless the file fails.
func (l *cappedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	if room := l.start + l.head - l.off; room > 0 {
		k := min(int64(len(p)), room)
		if _, err := l.f.WriteAt(p[:k], l.off); err != nil {
			return 0, err
		}
		l.off += k
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if _, err := l.f.WriteAt(p, l.off); err != nil {
		return n - len(p), err
	}
	l.off += int64(len(p))
	if l.off-l.rest > 2*l.tail {
		if err := l.cut(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// cut keeps the last tail bytes past the head, behind the line that counts the bytes dropped.
func (l *cappedLog) cut() error {
	if l.buf == nil {
		l.buf = make([]byte, l.tail)
	}
	if _, err := l.f.ReadAt(l.buf, l.off-l.tail); err != nil {
		return fmt.Errorf("reading back the end of the log: %w", err)
	}
	l.dropped += l.off - l.rest - l.tail
	line := dropLine(l.dropped, l.head, l.tail)
	at := l.start + l.head
	if _, err := l.f.WriteAt([]byte(line), at); err != nil {
		return err
	}
	l.rest = at + int64(len(line))
	if _, err := l.f.WriteAt(l.buf, l.rest); err != nil {
		return err
	}
	l.off = l.rest + l.tail
	return l.f.Truncate(l.off)
}

// Close cuts the attempt's output to the bounds and closes the file.
func (l *cappedLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return os.ErrClosed
	}
	var err error
	if l.off-l.rest > l.tail {
		err = l.cut()
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
