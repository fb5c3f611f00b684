package kernel_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gosbi/gosbi/internal/kernel"
	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/internal/syncbuf"
)

// stuckPeer connects to 127.0.0.1:port as a ZeroMQ socket of type typ with a tiny receive
// buffer, for a peer that never reads.
func stuckPeer(t *testing.T, port int, typ zmq4.SocketType, id string) *zmq4.Conn {
	t.Helper()
	return rawPeer(t, port, typ, id, 4096)
}

// rawPeer connects to 127.0.0.1:port as a ZeroMQ socket of type typ, with a receive buffer of
// rcvbuf bytes unless it is 0.
func rawPeer(t *testing.T, port int, typ zmq4.SocketType, id string, rcvbuf int) *zmq4.Conn {
	t.Helper()
	raw, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	if rcvbuf > 0 {
		raw.(*net.TCPConn).SetReadBuffer(rcvbuf)
	}
	t.Cleanup(func() { raw.Close() })
	c, err := zmq4.Open(raw, null.Security(), typ, zmq4.SocketIdentity(id), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bigCell is a fake-worker cell that prints about n MB.
func bigCell(n int) string {
	line := "print " + strings.Repeat("x", 1<<14)
	return strings.Repeat(line+"\n", n*64)
}

// TestFrozenSubscriber connects an iopub subscriber that never reads (it needs no key) while a
// cell prints 32 MB: a healthy client still gets every output and the idle status, in time.
func TestFrozenSubscriber(t *testing.T) {
	h := start(t, setup{key: "k"})
	stuck := stuckPeer(t, h.ci.IOPubPort, zmq4.Sub, "")
	if err := stuck.SendMsg(zmq4.NewMsg([]byte{1})); err != nil { // subscribe to everything
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the subscription arrive
	ctx, cancel := context.WithTimeout(h.ctx, 20*time.Second)
	defer cancel()
	const mb = 32
	ex, err := h.c.Execute(ctx, bigCell(mb), nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatalf("the healthy client did not get the cell's output and idle: %v", err)
	}
	got := 0
	for _, m := range ex.IOPub {
		if m.Header.MsgType == "stream" {
			got += len(decode(t, m.Content)["text"].(string))
		}
	}
	if want := mb * 64 * (1<<14 + 1); got != want {
		t.Errorf("the healthy client got %d bytes of output, want %d", got, want)
	}
}

// TestShellClientThatDoesNotRead sends large requests from a shell client that never reads its
// replies: another client's requests are still answered at once.
func TestShellClientThatDoesNotRead(t *testing.T) {
	h := start(t, setup{key: "k"})
	stuck := stuckPeer(t, h.ci.ShellPort, zmq4.Dealer, "stuck-client")
	big := strings.Repeat("y", 1<<20)
	for i := 0; i < 16; i++ {
		m, err := kernel.NewMessage("execute_request", "stuck", nil, map[string]any{"code": "expr", "user_expressions": map[string]string{"a": big}})
		if err != nil {
			t.Fatal(err)
		}
		frames, err := kernel.Encode(m, []byte("k"))
		if err != nil {
			t.Fatal(err)
		}
		if err := stuck.SendMsg(zmq4.NewMsgFrom(frames...)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * time.Second) // the kernel answers them into the stuck connection
	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := h.c.Request(ctx, "shell", "kernel_info_request", map[string]any{}); err != nil {
		t.Fatalf("a healthy client got no kernel_info_reply: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("kernel_info_reply took %v", d)
	}
}

// TestIPv6 serves a kernel on the IPv6 loopback address: a client connects and runs a cell.
func TestIPv6(t *testing.T) {
	ci, err := nbtest.NewConnectionInfo()
	if err != nil {
		t.Fatal(err)
	}
	ci.IP = "::1"
	k, err := kernel.New(kernel.Config{Conn: ci, Worker: fakeWorkerCmd, Log: &syncbuf.Buffer{}, Version: "test"})
	if err != nil {
		t.Fatalf("bind on ::1: %v", err)
	}
	ran := make(chan struct{})
	go func() { k.Run(context.Background()); close(ran) }()
	defer func() { k.Shutdown(); <-ran }()
	c, err := nbtest.Dial(ci)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	ex, err := c.Execute(ctx, "print over IPv6", nbtest.ExecuteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got := types(ex.IOPub); len(got) != 2 || got[1] != "stream" {
		t.Errorf("iopub %v", got)
	}
}

// TestHeartbeatClientThatDoesNotRead pings 64 MB from a heartbeat client that never reads the
// echoes: another client's pings are still answered.
func TestHeartbeatClientThatDoesNotRead(t *testing.T) {
	h := start(t, setup{})
	stuck := stuckPeer(t, h.ci.HBPort, zmq4.Req, "")
	big := make([]byte, 1<<20)
	for i := 0; i < 64; i++ {
		if err := stuck.SendMsg(zmq4.NewMsgFrom([]byte{}, big)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	if err := h.c.Ping(ctx); err != nil {
		t.Fatalf("a healthy client's ping: %v", err)
	}
}

// TestSubscriptions checks the topic filter of iopub: a subscriber gets the messages whose
// topic starts with one of its subscriptions, nothing after unsubscribing, and a ZMTP command
// does not count as a subscription.
func TestSubscriptions(t *testing.T) {
	h := start(t, setup{})
	sub := rawPeer(t, h.ci.IOPubPort, zmq4.Sub, "", 0)
	send := func(frame []byte) {
		if err := sub.SendMsg(zmq4.NewMsg(frame)); err != nil {
			t.Fatal(err)
		}
	}
	// A PING command whose body starts with 1, as a subscription would.
	if err := sub.SendCmd(zmq4.CmdPing, []byte{1, 'k'}); err != nil {
		t.Fatal(err)
	}
	send(append([]byte{1}, "kernel."...))
	time.Sleep(100 * time.Millisecond)
	h.exec("print one", nbtest.ExecuteConfig{})
	got := 0
	deadline := time.Now().Add(2 * time.Second)
	for got < 4 && time.Now().Before(deadline) { // busy, execute_input, stream, idle
		m, err := sub.RecvMsg()
		if err != nil {
			t.Fatal(err)
		}
		if m.Type == zmq4.CmdMsg {
			continue // the PONG
		}
		if !strings.HasPrefix(string(m.Frames[0]), "kernel.") {
			t.Errorf("got topic %q", m.Frames[0])
		}
		got++
	}
	if got != 4 {
		t.Fatalf("the subscriber got %d messages, want 4", got)
	}
	send(append([]byte{0}, "kernel."...))
	time.Sleep(100 * time.Millisecond)
	h.exec("print two", nbtest.ExecuteConfig{})
	done := make(chan zmq4.Msg, 1)
	go func() {
		for {
			m, err := sub.RecvMsg()
			if err != nil {
				return
			}
			if m.Type != zmq4.CmdMsg {
				done <- m
				return
			}
		}
	}()
	select {
	case m := <-done:
		t.Errorf("after unsubscribing the subscriber got %q", m.Frames)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestPingDuringFlood sends ZMTP PINGs from an iopub subscriber while a cell prints 1.6 MB in
// small pieces: the PONGs the peer's reader writes never land inside a message, so every
// message it gets (some are dropped: the subscriber is slow) and every PONG arrives whole.
func TestPingDuringFlood(t *testing.T) {
	h := start(t, setup{})
	sub := rawPeer(t, h.ci.IOPubPort, zmq4.Sub, "", 0)
	if err := sub.SendMsg(zmq4.NewMsg([]byte{1})); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	const pings = 2000
	ping := func() {
		for i := 0; i < pings; i++ {
			if sub.SendCmd(zmq4.CmdPing, []byte{0, 0}) != nil {
				return
			}
			time.Sleep(20 * time.Microsecond)
		}
	}
	line := "print " + strings.Repeat("z", 200)
	go h.c.Execute(h.ctx, strings.Repeat(line+"\n", 8000), nbtest.ExecuteConfig{})
	result := make(chan error, 1)
	go func() {
		pongs, msgs := 0, 0
		for pongs < pings {
			m, err := sub.RecvMsg()
			if err != nil {
				result <- fmt.Errorf("after %d pongs: %v", pongs, err)
				return
			}
			if m.Type == zmq4.CmdMsg {
				pongs++
				continue
			}
			if len(m.Frames) < 7 || string(m.Frames[1]) != "<IDS|MSG>" {
				result <- fmt.Errorf("a broken message after %d pongs: %q", pongs, m.Frames)
				return
			}
			if msgs++; msgs == 1 {
				go ping() // while the messages flow
			}
		}
		t.Logf("%d pongs, %d messages", pongs, msgs)
		result <- nil
	}()
	select {
	case err := <-result:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the subscriber did not get all its pongs within 60 s")
	}
}

// TestDeathBetweenCells lets the worker die after its cell has ended: nothing is published
// for that cell after its idle, and the next cell says, between its own busy and idle, that
// the worker died and state was reset.
func TestDeathBetweenCells(t *testing.T) {
	h := start(t, setup{})
	first := h.exec("dielater", nbtest.ExecuteConfig{})
	time.Sleep(600 * time.Millisecond)
	ctx, cancel := context.WithTimeout(h.ctx, 200*time.Millisecond)
	defer cancel()
	if m, err := h.c.IOPub.Next(ctx, nbtest.ParentIs(first.Request.Header.MsgID)); err == nil {
		t.Errorf("after its idle the first cell got %s %s", m.Header.MsgType, m.Content)
	}
	ex := h.exec("print next", nbtest.ExecuteConfig{})
	var text strings.Builder
	for _, m := range ex.IOPub {
		if m.Header.MsgType == "stream" {
			text.WriteString(decode(t, m.Content)["text"].(string))
		}
	}
	if !strings.Contains(text.String(), "died while no cell was running (") || !strings.Contains(text.String(), "was reset") || !strings.HasSuffix(text.String(), "next\n") {
		t.Errorf("the next cell printed %q, want the notice of the death, then its own output", text.String())
	}
}
