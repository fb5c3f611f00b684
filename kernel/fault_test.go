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

	"github.com/gosbi/gosbi/kernel"
	"github.com/gosbi/gosbi/nbtest"
)

// stuckPeer connects to 127.0.0.1:port as a ZeroMQ socket of type typ with a tiny receive
// buffer, and never reads.
func stuckPeer(t *testing.T, port int, typ zmq4.SocketType, id string) *zmq4.Conn {
	t.Helper()
	raw, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	raw.(*net.TCPConn).SetReadBuffer(4096)
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
	ex, err := h.c.Execute(ctx, bigCell(mb), nbtest.ExecuteOptions{})
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
