package extend_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/kernel"
)

// consoleScript runs the cell argv[1] in the installed gosbi kernel with jupyter_client and
// prints what Debian's jupyter console 6.4.4 shows of it: its handle_iopub prints the text of
// stream, display_data and execute_result messages and the traceback of errors, and ignores
// update_display_data.
const consoleScript = `
import sys
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="gosbi", startup_timeout=60)
try:
    msg_id = kc.execute(sys.argv[1])
    view = []
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            break
        if kind == "stream":
            view.append(content["text"])
        elif kind in ("display_data", "execute_result") and "text/plain" in content["data"]:
            view.append(content["data"]["text/plain"] + "\n")
        elif kind == "error":
            view.append("\n".join(content["traceback"]) + "\n")
    sys.stdout.write("".join(view))
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
`

// TestConsoleSeesFinalProgress: a console client, which shows a progress bar as it was first
// displayed and ignores its updates, also sees the final state of a long library call.
func TestConsoleSeesFinalProgress(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import jupyter_client").Run(); err != nil {
		t.Fatalf("%s cannot import jupyter_client (%v): install the Debian packages with scripts/setup.sh", python, err)
	}
	bin := gosbi(t)
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	if _, err := kernel.Install(kernel.InstallConfig{User: true, Binary: bin}); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "console.py")
	if err := os.WriteFile(script, []byte(consoleScript), 0o644); err != nil {
		t.Fatal(err)
	}
	const cell = "p := sbi.NewProgress(\"train NPE\", 20)\nfor i := range 20 {\n\ttime.Sleep(80 * time.Millisecond)\n\tp.Set(i+1, fmt.Sprintf(\"epoch %d\", i+1))\n}\np.Finish()"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script, cell)
	cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+data, "JUPYTER_PLATFORM_DIRS=1", "PYDEVD_DISABLE_FILE_VALIDATION=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the jupyter_client script failed: %v\n%s%s", err, out, stderr.String())
	}
	view := string(out)
	if !strings.Contains(view, "train NPE [") {
		t.Errorf("the console shows no progress bar:\n%s", view)
	}
	if !regexp.MustCompile(`(?m)^train NPE: 20/20 done in [\d.]+m?s \(epoch 20\)$`).MatchString(view) {
		t.Errorf("the console does not see the final state of the training:\n%s", view)
	}
}
