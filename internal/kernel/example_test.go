package kernel_test

import (
	"fmt"

	"github.com/gosbi/gosbi/internal/kernel"
)

// A message is signed with the connection key when encoded and verified when decoded.
func ExampleDecodeMessage() {
	key := []byte("connection-file-key")
	m, _ := kernel.NewMessage("kernel_info_request", "session-1", nil, map[string]any{})
	frames, _ := kernel.Encode(m, key)

	got, err := kernel.DecodeMessage(frames, key)
	fmt.Println(got.Header.MsgType, err)
	_, err = kernel.DecodeMessage(frames, []byte("another key"))
	fmt.Println(err)
	// Output:
	// kernel_info_request <nil>
	// kernel: message signature does not match the connection key
}
