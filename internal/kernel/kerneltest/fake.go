// Package kerneltest provides a fake interpreter worker for tests of the kernel front process
// and of notebook runners: it speaks the worker side of package ipc without an interpreter.
package kerneltest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/ipc"
)

// FakeWorker speaks the worker side of package ipc on the pipes the front passed it
// (ipc.InheritedPipe) without an interpreter, until
// the front closes the request pipe or asks it to shut down. Each line of a cell is a command:
//
//	print TEXT      stdout stream          eprint TEXT   stderr stream
//	flood N SIZE    N stdout streams of SIZE bytes each, numbered from 0 ("%07d " first)
//	result TEXT     execute_result         display ID    display_data with a display_id
//	update ID TEXT  update_display_data    clear         clear_output
//	error           an error event, then an error reply
//	errorreply      an error reply only (the front must publish the error)
//	twoerrors       two error events (the front must publish one)
//	sleep           run until interrupted  hang          ignore interrupts
//	exit            print a runtime error, then os.Exit(2)
//	crashreport     print a Go crash report whose crashing goroutine ran a compiled package's
//	                code and which ends with an idle goroutine's trace, then os.Exit(2)
//	gopanic         panic in a goroutine   input         ask for a line and print it
//	expr            answer user_expressions with their text
//	count           print the execution count and store_history
//	getenv NAME     print the value of an environment variable
//	page TEXT       reply with a pager payload holding TEXT
//	killfront       kill the kernel front process (SIGKILL), then hang
//	killself N      send itself signal number N
//	dielater        end the cell, then die 200 ms later with a runtime error
//	printlater TEXT end the cell, then print TEXT on the captured stdout 200 ms later
//	NAME = VALUE    (any line with "=") print "set NAME = VALUE"
//
// A line that fails ends the cell. With FAKE_WORKER_SLOW set in the environment, Ready comes
// after a second (the front must not wait for it to answer kernel_info).
func FakeWorker() {
	in, err := ipc.InheritedPipe(ipc.RequestPipe, "requests")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake worker:", err)
		os.Exit(2)
	}
	out, err := ipc.InheritedPipe(ipc.EventPipe, "events")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake worker:", err)
		os.Exit(2)
	}
	reqs := ipc.NewDecoder(in)
	events := ipc.NewEncoder(out)
	if os.Getenv("FAKE_WORKER_SLOW") != "" {
		time.Sleep(time.Second)
	}
	events.Send(ipc.Event{Type: ipc.Ready})
	incoming := make(chan ipc.Request, 16)
	interrupts := make(chan string, 16)
	inputs := make(chan ipc.Request, 1)
	go func() {
		defer close(incoming)
		for {
			var r ipc.Request
			if err := reqs.Next(&r); err != nil {
				if !errors.Is(err, io.EOF) {
					fmt.Fprintln(os.Stderr, "fake worker:", err)
				}
				return
			}
			switch r.Type {
			case ipc.Interrupt:
				interrupts <- r.ID
			case ipc.InputReply:
				inputs <- r
			default:
				incoming <- r
			}
		}
	}()
	reply := func(r ipc.Request, content map[string]any) {
		events.Send(ipc.Event{ID: r.ID, Type: ipc.Reply, Content: content})
	}
	for r := range incoming {
		switch r.Type {
		case ipc.Execute:
			reply(r, fakeExecute(r, events, interrupts, inputs))
		case ipc.Complete:
			start := r.CursorPos
			for start > 0 && r.Code[start-1] != ' ' && r.Code[start-1] != '.' && len([]rune(r.Code)) == len(r.Code) {
				start--
			}
			reply(r, map[string]any{"status": "ok", "matches": []string{"Printf", "Println"},
				"cursor_start": start, "cursor_end": r.CursorPos, "metadata": map[string]any{"cursor_pos": r.CursorPos}})
		case ipc.Inspect:
			reply(r, map[string]any{"status": "ok", "found": true,
				"data": map[string]any{"text/plain": fmt.Sprintf("doc of %q at %d", r.Code, r.CursorPos)}, "metadata": map[string]any{}})
		case ipc.IsComplete:
			switch {
			case strings.HasSuffix(r.Code, "{"):
				reply(r, map[string]any{"status": "incomplete", "indent": "\t"})
			case strings.Count(r.Code, "}") > strings.Count(r.Code, "{"):
				reply(r, map[string]any{"status": "invalid"})
			default:
				reply(r, map[string]any{"status": "complete"})
			}
		case ipc.Shutdown:
			reply(r, map[string]any{"status": "ok"})
			os.Exit(0)
		}
	}
}

func fakeExecute(r ipc.Request, events *ipc.Encoder, interrupts chan string, inputs chan ipc.Request) map[string]any {
	content := map[string]any{"status": "ok"}
	for _, line := range strings.Split(r.Code, "\n") {
		content = fakeLine(r, strings.TrimSpace(line), events, interrupts, inputs)
		if content["status"] != "ok" {
			break
		}
	}
	return content
}

func fakeLine(r ipc.Request, line string, events *ipc.Encoder, interrupts chan string, inputs chan ipc.Request) map[string]any {
	send := func(ev ipc.Event) { ev.ID = r.ID; events.Send(ev) }
	cmd, arg, _ := strings.Cut(line, " ")
	ok := map[string]any{"status": "ok"}
	if strings.Contains(line, "=") && cmd != "print" && cmd != "result" {
		send(ipc.Event{Type: ipc.Stream, Name: "stdout", Text: "set " + line + "\n"})
		return ok
	}
	switch cmd {
	case "", "nop", "//":
	case "print":
		send(ipc.Event{Type: ipc.Stream, Name: "stdout", Text: arg + "\n"})
	case "flood":
		var n, size int
		fmt.Sscan(arg, &n, &size)
		for i := range n {
			text := fmt.Sprintf("%07d ", i)
			text += strings.Repeat("f", max(size-len(text)-1, 0)) + "\n"
			send(ipc.Event{Type: ipc.Stream, Name: "stdout", Text: text})
		}
	case "eprint":
		send(ipc.Event{Type: ipc.Stream, Name: "stderr", Text: arg + "\n"})
	case "result":
		send(ipc.Event{Type: ipc.ExecuteResult, Data: map[string]any{"text/plain": arg}})
	case "display":
		send(ipc.Event{Type: ipc.DisplayData, Data: map[string]any{"text/plain": "display " + arg, "image/png": "iVBORw0KGgo="},
			Metadata: map[string]any{}, Transient: map[string]any{"display_id": arg}})
	case "update":
		id, text, _ := strings.Cut(arg, " ")
		send(ipc.Event{Type: ipc.UpdateDisplay, Data: map[string]any{"text/plain": text, "image/png": "iVBORw0KGgo="}, Transient: map[string]any{"display_id": id}})
	case "clear":
		send(ipc.Event{Type: ipc.ClearOutput, Wait: arg == "wait"})
	case "error":
		send(ipc.Event{Type: ipc.Error, Ename: "FakeError", Evalue: "it failed", Traceback: []string{"FakeError: it failed"}})
		return map[string]any{"status": "error", "ename": "FakeError", "evalue": "it failed", "traceback": []string{"FakeError: it failed"}}
	case "errorreply":
		return map[string]any{"status": "error", "ename": "ReplyError", "evalue": "only in the reply", "traceback": []string{"ReplyError"}}
	case "twoerrors":
		send(ipc.Event{Type: ipc.Error, Ename: "First", Evalue: "one"})
		send(ipc.Event{Type: ipc.Error, Ename: "Second", Evalue: "two"})
		return map[string]any{"status": "error", "ename": "First", "evalue": "one", "traceback": []string{}}
	case "sleep":
		// Wait for the interrupt of this cell; one meant for an earlier cell is ignored.
		for id := range interrupts {
			if id == r.ID {
				break
			}
		}
		send(ipc.Event{Type: ipc.Error, Ename: "Interrupted", Evalue: "the cell was interrupted"})
		return map[string]any{"status": "error", "ename": "Interrupted", "evalue": "the cell was interrupted", "traceback": []string{}}
	case "catch":
		// As sleep, but the cell handles its interrupt and ends ok.
		for id := range interrupts {
			if id == r.ID {
				break
			}
		}
	case "hang":
		select {}
	case "exit":
		fmt.Fprintln(os.Stderr, "runtime: goroutine stack exceeds 1000000000-byte limit")
		fmt.Fprintln(os.Stderr, "fatal error: stack overflow")
		fmt.Fprintln(os.Stderr, "\ngoroutine 1 [running]:\nmain.f(...)")
		os.Exit(2)
	case "crashreport":
		fmt.Fprint(os.Stderr, crashReport)
		os.Exit(2)
	case "gopanic":
		go func() { panic("boom in a goroutine") }()
		select {}
	case "input":
		send(ipc.Event{Type: ipc.InputRequest, Prompt: "name? "})
		v := <-inputs
		if v.Error != "" {
			msg := "reading standard input: " + v.Error
			send(ipc.Event{Type: ipc.Error, Ename: "InputError", Evalue: msg, Traceback: []string{msg}})
			return map[string]any{"status": "error", "ename": "InputError", "evalue": msg, "traceback": []string{msg}}
		}
		send(ipc.Event{Type: ipc.Stream, Name: "stdout", Text: "hello " + v.Value + "\n"})
	case "expr":
		ue := map[string]any{}
		for k, v := range r.UserExpressions {
			ue[k] = map[string]any{"status": "ok", "data": map[string]any{"text/plain": v}, "metadata": map[string]any{}}
		}
		ok["user_expressions"] = ue
	case "getenv":
		send(ipc.Event{Type: ipc.Stream, Name: "stdout", Text: arg + "=" + os.Getenv(arg) + "\n"})
	case "dielater":
		go func() {
			time.Sleep(200 * time.Millisecond)
			fmt.Fprintln(os.Stderr, "fatal error: died between cells")
			os.Exit(2)
		}()
	case "printlater":
		go func() {
			time.Sleep(200 * time.Millisecond)
			out, err := ipc.InheritedPipe(ipc.StdoutWrite, "stdout")
			if err != nil {
				fmt.Fprintln(os.Stderr, "fake worker:", err)
				return
			}
			fmt.Fprintln(out, arg)
		}()
	case "killself":
		n, _ := strconv.Atoi(arg)
		killSelf(n)
		select {}
	case "killfront":
		if p, err := os.FindProcess(os.Getppid()); err == nil {
			p.Kill()
		}
		select {}
	case "page":
		ok["payload"] = []any{map[string]any{"source": "page", "data": map[string]any{"text/plain": arg}, "start": 0}}
	case "touch":
		// As an editor that saves the file meanwhile: a newline more at its end.
		f, err := os.OpenFile(arg, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			_, err = f.WriteString("\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return map[string]any{"status": "error", "ename": "TouchError", "evalue": err.Error(), "traceback": []string{}}
		}
	case "count":
		send(ipc.Event{Type: ipc.Stream, Name: "stdout", Text: fmt.Sprintf("%d %v\n", r.ExecutionCount, r.StoreHistory)})
	default:
		send(ipc.Event{Type: ipc.Error, Ename: "UnknownCommand", Evalue: cmd})
		return map[string]any{"status": "error", "ename": "UnknownCommand", "evalue": cmd, "traceback": []string{}}
	}
	return ok
}

// crashReport is the shape of the report the Go runtime prints when a goroutine panics: the
// panic line, the crashing goroutine's trace, then the traces of the others.
const crashReport = `panic: runtime error: index out of range [7] with length 3

goroutine 43 [running]:
github.com/traefik/yaegi/interp.runCfg.func1()
	/go/pkg/mod/github.com/traefik/yaegi/interp/run.go:226 +0x1ae
panic({0x1549440?, 0x3efbbb9928a0?})
	/usr/local/go/src/runtime/panic.go:860 +0x13a
github.com/gosbi/gosbi/sbi.simulateChunk(0x3efbbb9928a0, 0x7)
	/src/gosbi/sbi/simulate.go:88 +0x2f
reflect.Value.call({0x133aec0?, 0x3efbbb8668a0?, 0x13?}, {0x1552421, 0x4}, {0x2b0b260, 0x0, 0x0?})
	/usr/local/go/src/reflect/value.go:586 +0xf0c
created by github.com/traefik/yaegi/interp.call.func9 in goroutine 42
	/go/pkg/mod/github.com/traefik/yaegi/interp/run.go:1335 +0xfd6

goroutine 21 [syscall]:
syscall.Syscall(0x0, 0x3, 0x158268698a2a, 0xf5d6)
	/usr/local/go/src/syscall/syscall_linux.go:74 +0x25
bufio.(*Scanner).Scan(0x1582686ade98)
	/usr/local/go/src/bufio/scan.go:219 +0x47b
github.com/gosbi/gosbi/internal/ipc.(*Decoder).Next(0x1582686ade90, {0x132f780, 0x1582687a8680})
	/src/gosbi/internal/ipc/ipc.go:167 +0x29
created by github.com/gosbi/gosbi/interp.runWorker in goroutine 1
	/src/gosbi/interp/worker.go:94 +0x705
`
