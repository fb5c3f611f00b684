//go:build !windows

// The test here drives the kernel from Debian's jupyter_client in Python (/usr/bin/python3),
// which scripts/setup.sh installs; Windows has none of it there.

package kernel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
	"github.com/gosbi/gosbi/internal/syncbuf"
)

// floodClient is a Jupyter client in Python (Debian's jupyter_client) that runs each cell it
// is given and reads its iopub messages until status idle, counting instead of keeping them:
// the stream text received, the output the kernel says it dropped, the result, the error. With
// "interrupt" set it sends interrupt_request on the control channel once that many bytes came.
// Every wait has a deadline; it prints one JSON object per cell.
const floodClient = `
import json, queue, sys, time
from jupyter_client import BlockingKernelClient

kc = BlockingKernelClient(connection_file=sys.argv[1])
kc.load_connection_file()
kc.start_channels()
kc.wait_for_ready(timeout=60)

def run(code, interrupt=0, timeout=150):
    msg_id = kc.execute(code, stop_on_error=False)
    got = {"bytes": 0, "lost": 0, "notes": 0, "result": None, "error": None, "idle": False, "status": None}
    deadline = time.time() + timeout
    sent = False
    while time.time() < deadline:
        try:
            msg = kc.get_iopub_msg(timeout=1)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        t, c = msg["msg_type"], msg["content"]
        if t == "stream":
            note = msg["metadata"].get("gosbi_dropped")
            if note:
                got["lost"] += note["bytes"]
                got["notes"] += 1
            else:
                got["bytes"] += len(c["text"])
        elif t == "execute_result":
            got["result"] = c["data"].get("text/plain")
        elif t == "error":
            got["error"] = c["ename"]
        elif t == "status" and c["execution_state"] == "idle":
            got["idle"] = True
            break
        if interrupt and not sent and got["bytes"] >= interrupt:
            kc.control_channel.send(kc.session.msg("interrupt_request", {}))
            sent = True
    while time.time() < deadline:
        try:
            reply = kc.get_shell_msg(timeout=1)
        except queue.Empty:
            continue
        if reply["parent_header"].get("msg_id") == msg_id:
            got["status"] = reply["content"]["status"]
            break
    return got

flood = 'import (\n\t"fmt"\n\t"strings"\n)\nline := strings.Repeat("x", 1<<20-1)\nfor i := 0; i < %d; i++ {\n\tfmt.Println(line)\n}\n"done"'
for name, code, interrupt in [("200MiB", flood % 200, 0), ("1GiB interrupted", flood % 1024, 96 << 20), ("next", "1 + 1", 0)]:
    start = time.time()
    got = run(code, interrupt)
    got["name"], got["seconds"] = name, round(time.time() - start, 1)
    print(json.dumps(got), flush=True)
kc.stop_channels()
`

// TestPythonClientFlood runs cells that print 200 MiB, and 1 GiB interrupted after 96 MiB,
// from Debian's Python jupyter_client, which reads more slowly than the kernel sends: the
// client gets status idle and the reply of every request, the result of the first cell, the
// error of the interrupted one, and every byte it did not get is accounted for by the
// kernel's notes; the next cell runs.
func TestPythonClientFlood(t *testing.T) {
	requireTool(t, "/usr/bin/python3")
	if err := exec.Command("/usr/bin/python3", "-c", "import jupyter_client").Run(); err != nil {
		t.Fatal("jupyter_client is missing: install jupyter-client with scripts/setup.sh")
	}
	bin := gosbiBinary(t)
	ci, err := nbtest.NewConnectionInfo()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conn := filepath.Join(dir, "kernel.json")
	b, _ := json.Marshal(ci)
	if err := os.WriteFile(conn, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	kernelLog := &syncbuf.Buffer{}
	k := exec.CommandContext(ctx, bin, "kernel", "-f", conn)
	k.Stderr = kernelLog
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		k.Process.Kill()
		k.Wait()
		if t.Failed() {
			t.Logf("kernel log:\n%s", kernelLog)
		}
	}()
	script := filepath.Join(dir, "client.py")
	if err := os.WriteFile(script, []byte(floodClient), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, "/usr/bin/python3", script, conn).CombinedOutput()
	if err != nil {
		t.Fatalf("the Python client failed: %v\n%s", err, out)
	}
	type cell struct {
		Name, Status  string
		Bytes, Lost   int
		Notes         int
		Result, Error *string
		Idle          bool
		Seconds       float64
	}
	var cells []cell
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var c cell
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("client output %q: %v", out, err)
		}
		cells = append(cells, c)
	}
	if len(cells) != 3 {
		t.Fatalf("the client reported %d cells, want 3:\n%s", len(cells), out)
	}
	for _, c := range cells {
		t.Logf("%s: %.1f s, %d MiB received, %d MiB dropped (%d notes), status %s, idle %v", c.Name, c.Seconds, c.Bytes>>20, c.Lost>>20, c.Notes, c.Status, c.Idle)
		if !c.Idle || c.Status == "" {
			t.Errorf("%s: idle %v, reply %q: the client must get both", c.Name, c.Idle, c.Status)
		}
	}
	big, stopped, next := cells[0], cells[1], cells[2]
	if big.Status != "ok" || big.Result == nil || *big.Result != `"done"` {
		t.Errorf("200 MiB: status %s, result %v, want ok and \"done\"", big.Status, big.Result)
	}
	// The kernel counts what it dropped by the size of the messages, a little more than their
	// text (headers, signature): between the text's size and 2% more.
	if total := 200 << 20; big.Bytes > total || float64(big.Bytes+big.Lost) < float64(total) || float64(big.Bytes+big.Lost) > 1.02*float64(total) {
		t.Errorf("200 MiB: received %d bytes, %d reported dropped, want %d in all", big.Bytes, big.Lost, total)
	}
	if stopped.Status != "error" || stopped.Error == nil || *stopped.Error != "Interrupted" {
		t.Errorf("1 GiB interrupted: status %s, error %v, want the Interrupted error", stopped.Status, stopped.Error)
	}
	if next.Status != "ok" || next.Result == nil || *next.Result != "2" {
		t.Errorf("the cell after the interrupt: status %s, result %v, want 2", next.Status, next.Result)
	}
}
