package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/ipc"
)

// executeRequest is the content of an execute_request.
type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      *bool             `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

func orTrue(b *bool) bool { return b == nil || *b }

// execute runs one cell in the worker and replies with its outcome.
func (k *Kernel) execute(m *Message) {
	var c executeRequest
	if err := json.Unmarshal(m.Content, &c); err != nil {
		k.badExecute(m, err)
		return
	}
	store := orTrue(c.StoreHistory) && !c.Silent
	k.mu.Lock()
	if store {
		k.execCount++
	}
	count := k.execCount
	k.mu.Unlock()
	if !c.Silent {
		k.publish("execute_input", m, map[string]any{"code": c.Code, "execution_count": count})
		k.mu.Lock()
		notice := k.notice
		k.notice = ""
		k.mu.Unlock()
		if notice != "" {
			k.publish("stream", m, map[string]any{"name": "stderr", "text": notice})
		}
	}
	req := &request{
		id:         NewID(),
		parent:     m,
		silent:     c.Silent,
		allowStdin: orTrue(c.AllowStdin),
		count:      count,
		reply:      make(chan ipc.Event, 1),
	}
	ev := k.call(req, ipc.Request{
		Type:            ipc.Execute,
		Code:            c.Code,
		ExecutionCount:  count,
		Silent:          c.Silent,
		StoreHistory:    store,
		AllowStdin:      req.allowStdin,
		UserExpressions: c.UserExpressions,
	})
	content := ev.Content
	if content == nil {
		content = map[string]any{}
	}
	if ev.Type == died {
		content = map[string]any{"status": "error", "ename": ev.Ename, "evalue": ev.Evalue, "traceback": ev.Traceback}
	}
	status, _ := content["status"].(string)
	k.mu.Lock()
	errSent, errEvent := req.errSent, req.errEvent
	k.mu.Unlock()
	switch {
	case errSent && status != "error":
		// The worker reported an error for the cell: the reply says so too.
		status = "error"
		content["status"] = status
		content["ename"], content["evalue"], content["traceback"] = errEvent.Ename, errEvent.Evalue, nonNil(errEvent.Traceback)
	case status == "error" && !errSent:
		if _, ok := content["ename"]; !ok {
			content["ename"], content["evalue"], content["traceback"] = "Error", "the cell failed", []string{"the cell failed"}
		}
		if !c.Silent {
			k.publish("error", m, map[string]any{"ename": content["ename"], "evalue": content["evalue"], "traceback": content["traceback"]})
		}
	case status == "":
		status = "ok"
		content["status"] = status
	}
	if status == "ok" {
		if _, ok := content["user_expressions"]; !ok {
			content["user_expressions"] = map[string]any{}
		}
		if _, ok := content["payload"]; !ok {
			content["payload"] = []any{}
		}
	}
	content["execution_count"] = count
	if store {
		k.mu.Lock()
		k.history.add(count, c.Code, req.result)
		k.mu.Unlock()
	}
	k.reply(k.shell, m, "execute_reply", content)
	if status == "error" && orTrue(c.StopOnError) {
		k.abortQueued()
	}
}

// badRequest is the error content for a request whose content does not decode: it names the
// field of the wrong type and what the protocol expects.
func badRequest(m *Message, err error) map[string]any {
	evalue := fmt.Sprintf("the %s was not run: its content does not follow the Jupyter messaging protocol (%v)", m.Header.MsgType, err)
	return map[string]any{"status": "error", "ename": "BadRequest", "evalue": evalue, "traceback": []string{"BadRequest: " + evalue}}
}

// badExecute answers an execute_request whose content does not decode with an error, without
// running anything or counting an execution.
func (k *Kernel) badExecute(m *Message, err error) {
	k.logf("execute_request with malformed content: %v", err)
	content := badRequest(m, err)
	k.publish("error", m, map[string]any{"ename": content["ename"], "evalue": content["evalue"], "traceback": content["traceback"]})
	k.mu.Lock()
	content["execution_count"] = k.execCount
	k.mu.Unlock()
	k.reply(k.shell, m, "execute_reply", content)
	k.abortQueued()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// abortQueued answers the execute requests that were queued behind a failed cell with
// status "aborted" (stop_on_error); other queued requests are handled normally.
func (k *Kernel) abortQueued() {
	for {
		select {
		case m := <-k.shellQ:
			if m.Header.MsgType != "execute_request" {
				k.dispatchShell(m)
				continue
			}
			k.status("busy", m)
			k.mu.Lock()
			count := k.execCount
			k.mu.Unlock()
			k.reply(k.shell, m, "execute_reply", map[string]any{"status": "aborted", "execution_count": count})
			k.status("idle", m)
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}

// forward hands a complete, inspect or is_complete request to the worker and relays its reply.
func (k *Kernel) forward(m *Message) {
	var c struct {
		Code        string `json:"code"`
		CursorPos   *int   `json:"cursor_pos"`
		DetailLevel int    `json:"detail_level"`
	}
	replyType := strings.TrimSuffix(m.Header.MsgType, "_request") + "_reply"
	if err := json.Unmarshal(m.Content, &c); err != nil {
		k.logf("%s with malformed content: %v", m.Header.MsgType, err)
		content := badRequest(m, err)
		if m.Header.MsgType == "is_complete_request" {
			content = map[string]any{"status": "unknown"} // the only answer for a code it cannot judge
		}
		k.reply(k.shell, m, replyType, content)
		return
	}
	pos := len([]rune(c.Code))
	utf16 := false
	if c.CursorPos != nil {
		pos, utf16 = toCodePoints(c.Code, *c.CursorPos)
	}
	typ := map[string]string{"complete_request": ipc.Complete, "inspect_request": ipc.Inspect, "is_complete_request": ipc.IsComplete}[m.Header.MsgType]
	req := &request{id: NewID(), parent: m, silent: true, reply: make(chan ipc.Event, 1)}
	ev := k.call(req, ipc.Request{Type: typ, Code: c.Code, CursorPos: pos, DetailLevel: c.DetailLevel})
	content := ev.Content
	if ev.Type == died || content == nil {
		content = fallbackReply(typ, pos, ev)
	}
	if typ == ipc.Complete && utf16 {
		for _, key := range []string{"cursor_start", "cursor_end"} {
			if f, ok := content[key].(float64); ok {
				content[key] = toUTF16(c.Code, int(f))
			}
		}
	}
	k.reply(k.shell, m, replyType, content)
}

// fallbackReply is the reply to a request the worker could not answer.
func fallbackReply(typ string, pos int, ev ipc.Event) map[string]any {
	switch typ {
	case ipc.Complete:
		return map[string]any{"status": "ok", "matches": []string{}, "cursor_start": pos, "cursor_end": pos, "metadata": map[string]any{}}
	case ipc.Inspect:
		return map[string]any{"status": "ok", "found": false, "data": map[string]any{}, "metadata": map[string]any{}}
	default:
		return map[string]any{"status": "unknown"}
	}
}

// call sends r to a ready worker on behalf of req and waits for its Reply. If the worker dies
// first, or cannot be started, the event returned has type died and says why.
func (k *Kernel) call(req *request, r ipc.Request) ipc.Event {
	w, err := k.readyWorker()
	if err != nil {
		return k.deathEvent(req, "WorkerStart", err.Error(), nil)
	}
	r.ID = req.id
	req.w = w
	k.mu.Lock()
	k.reqs[req.id] = req
	if r.Type == ipc.Execute {
		k.running = req
		k.lastExec = req
		if !req.silent {
			k.lastShown = req
		}
	}
	k.mu.Unlock()
	if err := w.send(r); err != nil {
		var big *ipc.TooLargeError
		if errors.As(err, &big) {
			// Nothing was written: no reply will come.
			k.forget(req)
			return k.deathEvent(req, "RequestTooLarge", fmt.Sprintf("the %s is %s once encoded for the Go worker process, more than the %s it accepts",
				requestNoun(r.Type), byteSize(big.Size), byteSize(big.Max)), nil)
		}
		// The pipe is broken: the worker is dying, and its pump will deliver the cause.
		k.logf("send to worker: %v", err)
	}
	ev := <-req.reply
	k.forget(req)
	return ev
}

// forget removes req from the requests in flight.
func (k *Kernel) forget(req *request) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.reqs, req.id)
	if k.running == req {
		k.running = nil
	}
	if k.inputOwner == req {
		k.inputOwner = nil
	}
}

// requestNoun names what a request of type typ carries, for errors.
func requestNoun(typ string) string {
	if typ == ipc.Execute {
		return "cell"
	}
	return typ + " request"
}

// deathEvent builds the error reported for a request whose worker ended, and publishes it unless
// the request is silent or already had its error.
func (k *Kernel) deathEvent(req *request, ename, evalue string, traceback []string) ipc.Event {
	if traceback == nil {
		traceback = []string{ename + ": " + evalue}
	}
	ev := ipc.Event{ID: req.id, Type: died, Ename: ename, Evalue: evalue, Traceback: traceback}
	k.mu.Lock()
	publish := !req.errSent && !req.silent
	req.errSent = true
	req.errEvent = ev
	k.mu.Unlock()
	if publish {
		k.publish("error", req.parent, map[string]any{"ename": ename, "evalue": evalue, "traceback": traceback})
	}
	return ev
}

// readyWorker returns the current worker once it is ready, starting one if there is none.
func (k *Kernel) readyWorker() (*worker, error) {
	w, err := k.ensureWorker()
	if err != nil {
		return nil, err
	}
	select {
	case <-w.ready:
		return w, nil
	case <-w.done:
		select {
		case <-w.ready: // it started, then died: the pump reports the death to the request
			return w, nil
		default:
		}
		return nil, fmt.Errorf("the Go worker process could not start: %s", w.cause())
	case <-time.After(k.cfg.WorkerStartTimeout):
		w.kill("it did not become ready")
		return nil, fmt.Errorf("the Go worker process did not become ready within %v", k.cfg.WorkerStartTimeout)
	}
}

// ensureWorker returns the current worker, starting a new one if there is none.
func (k *Kernel) ensureWorker() (*worker, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.w != nil {
		return k.w, nil
	}
	env := k.cfg.WorkerEnv
	if k.replaced {
		env = append(append([]string(nil), env...), ipc.RestartedEnv+"=1")
	}
	w, err := startWorker(k.cfg.Worker, env, k.cfg.Log, k.workerText)
	if err != nil {
		return nil, err
	}
	k.w = w
	go k.pump(w)
	return w, nil
}

// stopWorker shuts the current worker down (at kernel shutdown).
func (k *Kernel) stopWorker() {
	k.mu.Lock()
	w := k.w
	k.w = nil
	k.mu.Unlock()
	if w != nil {
		w.stop(2 * time.Second)
	}
}

// pump relays the events of worker w to iopub and to the waiting requests until w ends; then it
// reports the death to the request that was running and starts a fresh worker.
func (k *Kernel) pump(w *worker) {
	for ev := range w.events {
		k.handleEvent(w, ev)
	}
	<-w.done
	k.workerEnded(w)
}

// target returns the request an event belongs to: the one with its id, or for output that arrives
// outside any request (a goroutine of an earlier cell) the execute request running now. It
// returns nil when no request runs.
func (k *Kernel) target(id string) *request {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r, ok := k.reqs[id]; ok {
		return r
	}
	return k.running
}

// outsideCell returns the request that output of worker w printed while no cell runs belongs
// to: as with ipykernel, the last cell that shows its output, so that a notebook shows it under
// that cell (its parent header); nil when there is none, or w did not run it.
func (k *Kernel) outsideCell(w *worker) *request {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r := k.lastShown; r != nil && r.w == w {
		return r
	}
	return nil
}

func (k *Kernel) handleEvent(w *worker, ev ipc.Event) {
	req := k.target(ev.ID)
	if req == nil && ev.Type == ipc.Stream {
		req = k.outsideCell(w)
	}
	if ev.Type == ipc.Reply {
		if req != nil && req.id == ev.ID {
			req.reply <- ev
		} else if !k.closing() {
			k.logf("worker replied to unknown request %q", ev.ID)
		}
		return
	}
	if req == nil && ev.Type != ipc.InputRequest {
		k.logf("worker output outside any request dropped: %s %s%s", ev.Type, ev.Text, ev.Evalue)
		return
	}
	var parent *Message
	silent := false
	if req != nil {
		parent, silent = req.parent, req.silent
	}
	switch ev.Type {
	case ipc.Stream:
		if !silent {
			name := ev.Name
			if name != "stderr" {
				name = "stdout"
			}
			k.publish("stream", parent, map[string]any{"name": name, "text": ev.Text})
		}
	case ipc.DisplayData, ipc.UpdateDisplay:
		if !silent {
			content := map[string]any{"data": orMap(ev.Data), "metadata": orMap(ev.Metadata)}
			if ev.Transient != nil {
				content["transient"] = ev.Transient
			}
			k.publish(ev.Type, parent, content)
		}
	case ipc.ClearOutput:
		if !silent {
			k.publish("clear_output", parent, map[string]any{"wait": ev.Wait})
		}
	case ipc.ExecuteResult:
		if req != nil {
			if s, ok := ev.Data["text/plain"].(string); ok {
				k.mu.Lock()
				req.result = cutHistoryOutput(s)
				k.mu.Unlock()
			}
		}
		if !silent {
			count := 0
			if req != nil {
				count = req.count
			}
			k.publish("execute_result", parent, map[string]any{"execution_count": count, "data": orMap(ev.Data), "metadata": orMap(ev.Metadata)})
		}
	case ipc.Error:
		publish := true
		if req != nil {
			k.mu.Lock()
			publish = !req.errSent && !req.silent
			if req.id == ev.ID && !req.errSent {
				req.errSent = true
				req.errEvent = ev
			}
			k.mu.Unlock()
		}
		if publish {
			k.publish("error", parent, map[string]any{"ename": ev.Ename, "evalue": ev.Evalue, "traceback": nonNil(ev.Traceback)})
		}
	case ipc.InputRequest:
		if req == nil || req.id != ev.ID || !req.allowStdin {
			k.logf("the worker asked for input the front-end does not allow: answering with an empty line")
			w.send(ipc.Request{ID: ev.ID, Type: ipc.InputReply})
			return
		}
		k.mu.Lock()
		k.inputOwner = req
		k.mu.Unlock()
		k.reply(k.stdin, req.parent, "input_request", map[string]any{"prompt": ev.Prompt, "password": ev.Password})
	default:
		k.logf("ignoring worker event of type %q", ev.Type)
	}
}

// workerText publishes text that worker w printed as a stream of the cell it runs, or, while
// none runs (a goroutine of an earlier cell), of the last cell that shows its output. The
// worker's sync marks keep it before the cell's later displays, its result and its reply; what
// a dying worker printed comes before the error that reports its death. Text goes to the cell
// running when the front reads it, so a later cell's output never goes to an earlier one.
func (k *Kernel) workerText(w *worker, name, text string) {
	k.mu.Lock()
	req := k.running
	k.mu.Unlock()
	if req == nil {
		req = k.outsideCell(w)
	}
	if req == nil || req.w != w {
		k.logf("output outside a cell (%s): %s", name, strings.TrimRight(text, "\n"))
		return
	}
	if !req.silent {
		k.publish("stream", req.parent, map[string]any{"name": name, "text": text})
	}
}

// closing reports whether the kernel is shutting down.
func (k *Kernel) closing() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

func orMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// workerEnded handles the end of worker w: the request it was serving gets an error that names
// the cause, and a fresh worker is started (unless w never became ready, or the kernel is
// shutting down).
func (k *Kernel) workerEnded(w *worker) {
	k.mu.Lock()
	if k.w == w {
		k.w = nil
	}
	var pending []*request
	for _, r := range k.reqs {
		if r.w == w {
			pending = append(pending, r)
		}
	}
	last := k.lastExec
	k.mu.Unlock()
	shuttingDown := false
	select {
	case <-k.done:
		shuttingDown = true
	default:
	}
	wasReady := false
	select {
	case <-w.ready:
		wasReady = true
	default:
	}
	reason, cause := w.reason(), w.cause()
	w.mu.Lock()
	killedBy := w.killedBy
	w.mu.Unlock()
	const reset = "The Go worker process was restarted: all state (variables, functions, imports) was reset. Re-run the cells this one needs."
	for _, r := range pending {
		ename, evalue := "WorkerCrash", reason
		if killedBy != "" {
			ename, evalue = "Interrupted", killedBy
		}
		if evalue == "" {
			evalue = "the Go worker process died"
		}
		tb := []string{ename + ": " + evalue}
		if report := w.tail.Report(); killedBy == "" && len(report) > 0 {
			tb = append(tb, "")
			tb = append(tb, crashSummary(report, w.tail.Headline())...)
			tb = append(tb, "The Go runtime's whole crash report is in the kernel's log.")
		} else if killedBy == "" {
			tb = append(tb, "", "Last output of the worker process:", lastLines(w.tail.Lines(), 12))
		}
		tb = append(tb, "", reset)
		r.reply <- k.deathEvent(r, ename, evalue, tb)
	}
	if shuttingDown {
		return
	}
	if len(pending) == 0 && wasReady && last != nil {
		// The notice belongs to no request that is still running: it is published with the
		// next cell, between that cell's busy and idle.
		k.mu.Lock()
		k.notice += "gosbi: the Go worker process died while no cell was running (" + firstLine(cause) + ").\n" + reset + "\n"
		k.mu.Unlock()
	}
	if wasReady {
		k.logf("worker ended: %s", cause)
		k.mu.Lock()
		k.replaced = true
		k.mu.Unlock()
		go k.ensureWorker()
	}
}

func lastLines(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSuffix(s[:i], ":")
	}
	return s
}
