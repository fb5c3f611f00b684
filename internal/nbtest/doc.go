// Package nbtest executes Jupyter notebooks through the gosbi kernel, as a Jupyter front-end
// would, and checks them.
//
// Client is a Go Jupyter client (ZeroMQ, messaging protocol 5.3); StartKernel starts a kernel
// process on free loopback ports and connects to it. Execute runs every code cell of a notebook
// and returns it with its outputs (nbformat 4.5), handling streams, display updates by
// display_id and clear_output as notebook front-ends do, and keeping what a cell sends to the
// pager (%help, ?name) as a display output after the cell's others, as JupyterLab does. Parameters follow papermill's
// convention: the cell tagged "parameters" holds the defaults, and the runner injects a cell
// after it with the overriding values. The parameters are the variables declared at the top
// level of that cell: another name is an error listing them, and a value that is not of the
// parameter's type (declared, or that of its constant default) is refused before anything
// runs (GOSBI_FULL=1 is quick=false, under the same rules). RunMain is the
// `gosbi run` command; WriteHTML renders an executed notebook as one standalone HTML page.
// CheckNotebooks is the harness that tests the repository's notebooks; SavedRuns and DiffCode
// find the saved runs of a notebook (results/NAME-full.ipynb) whose code is no longer the
// notebook's.
//
// Output that a goroutine prints after its cell has ended, which the kernel sends to the last
// cell that ran, is appended to that cell's outputs in arrival order: the runner reads it with
// the next cell's messages, and for LateOutputWait after the last cell; what comes later is not
// kept. It counts in the limits below as if it had come while the cell ran.
//
// Every wait is bounded. It ends when the kernel process exits (the notebook is then returned
// as far as it ran, the running cell with an error, and cells that did not run have no
// outputs); a cell's timeout runs from its execute_request to its execute_reply, after which
// it is interrupted and its reply awaited for InterruptWait; once the reply is in, status idle
// is awaited only while the cell's messages keep coming (DefaultIdleWait of silence ends it).
//
// Memory is bounded too: a Client holds at most IOPubHold bytes of unread iopub messages (the
// kernel then drops output for it, never status, results or errors, and says so in a stream
// note), and the runner saves at most Config.MaxOutput of a cell's stream output, the first
// and the last half, with a note of what was left out between them, and at most MaxRunOutput
// of all the outputs of a run (past it the run stops, the notebook saved as far as it ran). A
// notebook file is read only when it holds at most MaxNotebookSize bytes.
package nbtest
