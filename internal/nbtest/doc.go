// Package nbtest executes Jupyter notebooks through the gosbi kernel, as a Jupyter front-end
// would, and checks them.
//
// Client is a Go Jupyter client (ZeroMQ, messaging protocol 5.3); StartKernel starts a kernel
// process on free loopback ports and connects to it. Execute runs every code cell of a notebook
// and returns it with its outputs (nbformat 4.5), handling streams, display updates by
// display_id and clear_output as notebook front-ends do. Parameters follow papermill's
// convention: the cell tagged "parameters" holds the defaults, and the runner injects a cell
// after it with the overriding values (GOSBI_FULL=1 sets quick to false). Every wait ends when
// the kernel process exits; the notebook is then returned as far as it ran, the running cell
// with an error, and cells that did not run have no outputs. RunMain is the
// `gosbi run` command; WriteHTML renders an executed notebook as one standalone HTML page.
// CheckNotebooks is the harness that tests the repository's notebooks.
package nbtest
