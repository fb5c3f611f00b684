// Package kernel is the front process of the gosbi Jupyter kernel.
//
// The front owns the five ZeroMQ sockets of the Jupyter messaging protocol (version 5.3): the
// shell, control and stdin ROUTER sockets, the iopub PUB socket and the heartbeat REP socket. It
// verifies and signs every message (HMAC-SHA256 with the key of the connection file; an empty key
// means unsigned), publishes status busy/idle around every request, keeps the execution counter and
// the input history, and answers kernel_info, history, comm and control requests itself.
//
// Every peer of the shell, control, stdin, iopub and heartbeat sockets has its own writer and
// a bounded queue (1000 messages or 64 MiB): sending never blocks the front, so that one stuck
// client cannot stall the others. Beyond the bound, a ROUTER peer loses the new message, as
// with ZeroMQ. An iopub peer never loses status, execute_input, execute_result, error or
// clear_output messages: it loses output (stream, display_data, update_display_data), the
// oldest first, and where the gap is it gets one stderr stream line that says how many
// messages it lost (with the counts in the message's metadata, LossMetadata). So a client that
// reads more slowly than a cell prints still sees the end of the output, the result, the error
// and status idle of every request.
//
// A message a peer sends may have at most 64 MiB (its frames together, each counted with 32
// bytes more, so that a message of many tiny frames is bounded too). The front follows the
// frame headers as they arrive and disconnects a peer whose message would be larger, before
// reading or allocating it, and logs why; a ZeroMQ client connects again by itself.
//
// An input_reply is passed to the worker that asked for it. One too large for the worker's
// pipe (a message there may have 256 MiB, and JSON escapes can make a value up to six times
// longer) is not: the cell's read of standard input fails with an error saying so and giving
// the limit, instead of waiting for an answer that cannot come.
//
// A connection file must have a "key"; an empty key (unsigned messages) starts the kernel with
// a warning on its stderr.
//
// Cells run in a worker process (`gosbi worker`, package interp) that the front starts and
// supervises. They talk over two pipes with the messages of package ipc. When the worker dies —
// a runtime fatal error (a stack overflow, concurrent map writes), a panic in a goroutine that
// compiled code started, an out-of-memory kill — the cell that was running gets one error
// naming the cause, a fresh worker is started and the user is told that state was reset. A
// panic in a goroutine that a cell's go statement started does not end the worker: it reports
// the panic on standard error and the session goes on (see package interp). An interrupt (interrupt_request on the control channel, or SIGINT) cancels the running
// cell; if the cell does not return within a grace period, the worker is killed and restarted.
// The worker runs in a process group of its own (on Unix; a console process group on Windows),
// so that Ctrl-C in a terminal, which signals the front's group, interrupts the cell through
// the front rather than kill the worker and its state (on Windows, Ctrl-C but not
// Ctrl-Break); it dies with the front (a parent-death signal on Linux, the end of its request
// pipe elsewhere).
//
// # Windows
//
// The kernel runs on Windows as elsewhere, with these differences. The worker gets its pipes
// as inherited handles named in an environment variable (ipc.PassPipes) rather than as file
// descriptors 3 to 8. It captures what a cell prints by pointing os.Stdout, os.Stderr and the
// process's standard output handle at its capture pipes: Go code, interpreted or compiled, and
// the commands a cell runs with os.Stdout or os.Stderr as their output are captured; C code
// writing through its runtime's stdout or stderr is not (its output goes to the kernel's log).
// A session cannot link an extension (%%compile, imports of packages gosbi does not link),
// which replaces the worker's process by a new program: Windows cannot. The end of a killed
// worker names no signal, as Windows has none. When the worker dies, the front reads what it
// wrote, and stops shortly after as on Unix even if a process the worker started keeps the
// capture pipes open: Windows pipes have no read deadline, so the front closes its read ends
// instead. The worker's console process group ignores Ctrl-C but not Ctrl-Break, which still
// kills the worker with the session's state (Jupyter interrupts with a message, not a signal).
// The kernel does not notice when the process that started it dies (watchParent does nothing
// there): it ends when it is shut down or killed. This holds under Wine; it was not run on
// Windows itself.
//
// The package also holds the wire format (Encode, DecodeMessage) shared with package nbtest, the
// kernelspec installer (Install, InstallMain) and the entry point Main of `gosbi kernel`.
//
// # History
//
// The front keeps the input history of the cells run with store_history, with the text/plain
// of their execute_result, for history_request (tail, range and search), within bounds: an
// entry's output is kept up to 1 MiB, its beginning followed by a note saying how much was cut;
// the outputs kept, all entries' together, are at most 64 MiB, and past that the oldest
// outputs are dropped first (their inputs are kept, and a reply with output gives a note in
// their place); the inputs kept are at most 64 MiB (64 bytes more counted per entry), and past
// that the oldest entries are dropped whole, the newest always kept. A reply answers from the
// entries kept: a range over dropped lines holds none of them.
//
// # Cursor positions
//
// The protocol (5.2 and later) counts cursor_pos in Unicode code points, and the worker is given
// code points. JupyterLab sends UTF-16 code units instead. The two differ only when characters
// outside the Basic Multilingual Plane (emoji, mathematical alphanumerics) come before the cursor.
// The front reads cursor_pos as code points, as the specification says, unless that position lies
// beyond the end of the code, in which case it must be UTF-16 and is converted; cursor_start and
// cursor_end in the reply are converted back into the unit the request used. The environment
// variable GOSBI_CURSOR_UNITS=utf16 (or codepoints) forces one reading for front-ends known to
// send it.
package kernel
