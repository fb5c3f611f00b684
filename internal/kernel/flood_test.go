package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/nbtest"
)

// seen is what one iopub client got for one request.
type seen struct {
	numbers  []int // the numbers of the flood lines received, in order
	noted    []int // messages the kernel's notes say were dropped, per note
	notedAt  []int // how many lines had been received before each note
	result   string
	errName  string
	idle     bool
	messages int
}

func (s *seen) add(t *testing.T, m *kernel.Message) {
	t.Helper()
	s.messages++
	var c struct {
		Name, Text, Ename string
		State             string         `json:"execution_state"`
		Data              map[string]any `json:"data"`
	}
	json.Unmarshal(m.Content, &c)
	switch m.Header.MsgType {
	case "stream":
		var meta map[string]struct{ Messages int }
		json.Unmarshal(m.Metadata, &meta)
		if note, ok := meta[kernel.LossMetadata]; ok {
			if c.Name != "stderr" || !strings.Contains(c.Text, fmt.Sprintf("%d output messages", note.Messages)) {
				t.Errorf("the note of a loss is %s %q", c.Name, c.Text)
			}
			s.noted = append(s.noted, note.Messages)
			s.notedAt = append(s.notedAt, len(s.numbers))
			return
		}
		n, err := strconv.Atoi(strings.Fields(c.Text + " x")[0])
		if err != nil {
			t.Errorf("a stream that is not a flood line: %q", c.Text[:min(len(c.Text), 200)])
			return
		}
		s.numbers = append(s.numbers, n)
	case "execute_result":
		s.result, _ = c.Data["text/plain"].(string)
	case "error":
		s.errName = c.Ename
	case "status":
		s.idle = s.idle || c.State == "idle"
	}
}

// check verifies that the lines received and the losses noted account for all n lines, in
// order, each note standing where its gap is.
func (s *seen) check(t *testing.T, who string, n int) {
	t.Helper()
	lost := 0
	for _, k := range s.noted {
		lost += k
	}
	if len(s.numbers)+lost != n {
		t.Errorf("%s: %d lines received and %d noted as dropped, want %d in all", who, len(s.numbers), lost, n)
	}
	next, note := 0, 0
	for i, got := range s.numbers {
		for note < len(s.notedAt) && s.notedAt[note] == i {
			next += s.noted[note]
			note++
		}
		if got != next {
			t.Errorf("%s: line %d came where line %d was due (the notes of the gaps do not match them)", who, got, next)
			return
		}
		next++
	}
}

// readUntilIdle reads the iopub messages of request id from a raw subscriber until its status
// idle; it fails the test when that does not come before ctx ends.
func readUntilIdle(t *testing.T, ctx context.Context, sub *zmq4.Conn, key, id string) *seen {
	t.Helper()
	s := &seen{}
	done := make(chan error, 1)
	go func() {
		for {
			raw, err := sub.RecvMsg()
			if err != nil {
				done <- err
				return
			}
			m, err := kernel.DecodeMessage(raw.Frames, []byte(key))
			if err != nil {
				done <- err
				return
			}
			var parent kernel.Header
			json.Unmarshal(m.ParentHeader, &parent)
			if parent.MsgID == id {
				s.add(t, m)
				if s.idle {
					done <- nil
					return
				}
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the slow subscriber, after %s: %v", summary(s), err)
		}
	case <-ctx.Done():
		t.Fatalf("the slow subscriber did not get the status idle: %s", summary(s))
	}
	return s
}

// TestSlowSubscriberGetsTheEnd floods iopub past the per-client bound while one subscriber
// reads nothing until the cell has ended: that subscriber still gets the cell's result and its
// status idle; it loses only output, the oldest first, and a stderr note at each gap says how
// many messages it lost there, so that the end of the output is there. A second cell is
// interrupted during its flood: its error and idle reach the slow subscriber too. A client
// that reads gets every request's idle.
func TestSlowSubscriberGetsTheEnd(t *testing.T) {
	h := start(t, setup{key: "k", grace: time.Minute})
	slow := rawPeer(t, h.ci.IOPubPort, zmq4.Sub, "", 0)
	if err := slow.SendMsg(zmq4.NewMsg([]byte{1})); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the subscription arrive
	ctx, cancel := context.WithTimeout(h.ctx, 50*time.Second)
	defer cancel()

	const lines, size = 5120, 16 << 10 // 80 MiB, beyond the 64 MiB the kernel holds for a client
	var fast seen
	begin := time.Now()
	ex, err := h.c.Execute(ctx, fmt.Sprintf("flood %d %d\nresult done", lines, size),
		nbtest.ExecuteConfig{Discard: true, OnOutput: func(m *kernel.Message) { fast.add(t, m) }})
	if err != nil {
		t.Fatalf("the reading client did not get the reply and idle: %v", err)
	}
	t.Logf("first cell: %v", time.Since(begin))
	fast.check(t, "the reading client", lines)
	if fast.result != "done" {
		t.Errorf("the reading client got result %q, want \"done\"", fast.result)
	}
	first := readUntilIdle(t, ctx, slow, "k", ex.Request.Header.MsgID)
	t.Logf("slow subscriber: %s", summary(first))
	if first.result != "done" {
		t.Errorf("the slow subscriber got result %q, want \"done\"", first.result)
	}
	if len(first.noted) == 0 {
		t.Errorf("the slow subscriber lost no output of a flood it did not read")
	}
	first.check(t, "the slow subscriber", lines)
	if n := len(first.numbers); n == 0 || first.numbers[n-1] != lines-1 {
		t.Errorf("the slow subscriber did not get the last line of the flood (%s): the oldest output must go first", summary(first))
	}

	// The second cell floods, then waits for its interrupt, which comes during the flood.
	req, err := h.c.Send("shell", "execute_request", map[string]any{"code": fmt.Sprintf("flood %d %d\nsleep", lines, size), "stop_on_error": false})
	if err != nil {
		t.Fatal(err)
	}
	var fast2 seen
	interrupted := false
	begin = time.Now()
	_, err = h.c.Collect(ctx, req, nbtest.ExecuteConfig{Discard: true, OnOutput: func(m *kernel.Message) {
		fast2.add(t, m)
		if !interrupted && len(fast2.numbers) > 200 {
			interrupted = true
			if _, err := h.c.Send("control", "interrupt_request", map[string]any{}); err != nil {
				t.Error(err)
			}
		}
	}})
	if err != nil {
		t.Fatalf("the reading client did not get the interrupted cell's reply and idle: %v", err)
	}
	t.Logf("second cell: %v", time.Since(begin))
	if fast2.errName != "Interrupted" {
		t.Errorf("the interrupted cell's error is %q, want Interrupted", fast2.errName)
	}
	fast2.check(t, "the reading client, interrupted cell", lines)
	second := readUntilIdle(t, ctx, slow, "k", req.Header.MsgID)
	t.Logf("slow subscriber: %s", summary(second))
	if second.errName != "Interrupted" {
		t.Errorf("the slow subscriber got error %q of the interrupted cell, want Interrupted", second.errName)
	}
	second.check(t, "the slow subscriber, interrupted cell", lines)
}

func summary(s *seen) string {
	last := -1
	if len(s.numbers) > 0 {
		last = s.numbers[len(s.numbers)-1]
	}
	return fmt.Sprintf("%d messages, %d lines (last %d), notes %v, result %q, error %q, idle %v", s.messages, len(s.numbers), last, s.noted, s.result, s.errName, s.idle)
}
