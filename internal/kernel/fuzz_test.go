package kernel_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/gosbi/gosbi/internal/kernel"
)

func signHex(key []byte, parts ...[]byte) string {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// FuzzDecodeMessage feeds arbitrary frames to the wire decoder: it must never panic, and what
// it accepts must encode back to frames that decode to the same message.
func FuzzDecodeMessage(f *testing.F) {
	key := []byte("fuzz")
	m, _ := kernel.NewMessage("execute_request", "s", nil, map[string]any{"code": "x := 1"})
	good, _ := kernel.Encode(m, key)
	f.Add(bytes.Join(good, []byte{0}), true)
	unsigned, _ := kernel.Encode(m, nil)
	f.Add(bytes.Join(unsigned, []byte{0}), false)
	f.Add([]byte("<IDS|MSG>\x00\x00{}\x00{}\x00{}\x00{}"), false)
	f.Add([]byte("id\x00<IDS|MSG>\x00sig\x00{\"msg_type\":1}\x00{}\x00{}\x00[]"), true)
	f.Fuzz(func(t *testing.T, data []byte, signed bool) {
		frames := bytes.Split(data, []byte{0})
		k := key
		if !signed {
			k = nil
		}
		if signed && len(frames) > 6 {
			// Give half of the inputs a valid signature so that the JSON checks are reached.
			for i, fr := range frames {
				if bytes.Equal(fr, []byte("<IDS|MSG>")) && i+5 < len(frames) && len(data)%2 == 0 {
					frames[i+1] = []byte(signHex(key, frames[i+2], frames[i+3], frames[i+4], frames[i+5]))
					break
				}
			}
		}
		msg, err := kernel.DecodeMessage(frames, k)
		if err != nil {
			return
		}
		re, err := kernel.Encode(msg, k)
		if err != nil {
			t.Fatalf("decoded message does not encode: %v", err)
		}
		back, err := kernel.DecodeMessage(re, k)
		if err != nil {
			t.Fatalf("re-encoded message does not decode: %v", err)
		}
		if back.Header != msg.Header || !bytes.Equal(back.Content, msg.Content) {
			t.Fatalf("round trip changed the message: %+v -> %+v", msg.Header, back.Header)
		}
	})
}
