package kernel

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"

	"github.com/gosbi/gosbi/internal/readlimit"
)

// ConnectionInfo is the content of the connection file Jupyter writes for a kernel.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// ReadConnectionFile reads and checks a connection file; one larger than 1 MiB is refused.
func ReadConnectionFile(path string) (*ConnectionInfo, error) {
	b, err := readlimit.File(path, "a connection file", maxConnectionFileSize)
	if err != nil {
		return nil, fmt.Errorf("read connection file: %w", err)
	}
	var ci ConnectionInfo
	if err := json.Unmarshal(b, &ci); err != nil {
		return nil, fmt.Errorf("connection file %s is not valid JSON: %w", path, err)
	}
	// An empty key is allowed by the protocol (messages are then not signed); a missing one
	// is a malformed file, which must not start a kernel that runs whatever reaches its ports.
	var fields map[string]json.RawMessage
	json.Unmarshal(b, &fields)
	if _, ok := fields["key"]; !ok {
		return nil, fmt.Errorf("connection file %s has no \"key\" field: a kernel needs the key its messages are signed with "+
			"(\"key\": \"\" turns signing off, which anyone who can reach its ports could exploit to run code)", path)
	}
	if err := ci.check(); err != nil {
		return nil, fmt.Errorf("connection file %s: %w", path, err)
	}
	return &ci, nil
}

func (ci *ConnectionInfo) check() error {
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	if ci.Transport != "tcp" && ci.Transport != "ipc" {
		return fmt.Errorf("transport %q is not supported: use \"tcp\" or \"ipc\"", ci.Transport)
	}
	if ci.IP == "" {
		return fmt.Errorf("no \"ip\" given")
	}
	if ci.SignatureScheme != "" && ci.SignatureScheme != "hmac-sha256" {
		return fmt.Errorf("signature scheme %q is not supported: use \"hmac-sha256\"", ci.SignatureScheme)
	}
	return nil
}

// endpoint returns the ZeroMQ address of a channel with the given port. With the ipc
// transport, Jupyter names the socket files IP-PORT.
func (ci *ConnectionInfo) endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return "tcp://" + net.JoinHostPort(ci.IP, strconv.Itoa(port))
}

// maxConnectionFileSize bounds a connection file (1 MiB; Jupyter's hold a few hundred bytes).
const maxConnectionFileSize = 1 << 20
