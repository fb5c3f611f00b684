package kernel

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ProtocolVersion is the version of the Jupyter messaging protocol the kernel speaks.
const ProtocolVersion = "5.3"

// delimiter separates the routing identities from the message frames.
var delimiter = []byte("<IDS|MSG>")

// Header is the header of a Jupyter message.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one Jupyter message as it travels on a socket.
type Message struct {
	// Identities are the routing frames before the delimiter (ROUTER sockets) or the topic
	// (iopub).
	Identities [][]byte
	Header     Header
	// RawHeader is the header exactly as received; replies carry it as their parent header so
	// that fields the kernel does not know survive.
	RawHeader    json.RawMessage
	ParentHeader json.RawMessage
	Metadata     json.RawMessage
	Content      json.RawMessage
	Buffers      [][]byte
}

// ErrSignature is returned by DecodeMessage for a message whose signature does not match.
var ErrSignature = errors.New("kernel: message signature does not match the connection key")

// DecodeMessage parses the frames of a message received on a socket and verifies its signature
// with key (an empty key means the messages are not signed). It never panics: frames that do not
// form a message give an error that says what was wrong.
func DecodeMessage(frames [][]byte, key []byte) (*Message, error) {
	d := -1
	for i, f := range frames {
		if bytes.Equal(f, delimiter) {
			d = i
			break
		}
	}
	if d < 0 {
		return nil, fmt.Errorf("kernel: message without the %q delimiter (%d frames)", delimiter, len(frames))
	}
	rest := frames[d+1:]
	if len(rest) < 5 {
		return nil, fmt.Errorf("kernel: truncated message: %d frames after the delimiter, want at least 5 (signature, header, parent header, metadata, content)", len(rest))
	}
	if len(key) > 0 {
		want := sign(key, rest[1], rest[2], rest[3], rest[4])
		got := make([]byte, hex.DecodedLen(len(rest[0])))
		n, err := hex.Decode(got, rest[0])
		if err != nil || !hmac.Equal(got[:n], want) {
			return nil, ErrSignature
		}
	}
	m := &Message{
		Identities:   frames[:d],
		RawHeader:    json.RawMessage(rest[1]),
		ParentHeader: json.RawMessage(rest[2]),
		Metadata:     json.RawMessage(rest[3]),
		Content:      json.RawMessage(rest[4]),
		Buffers:      rest[5:],
	}
	if err := json.Unmarshal(rest[1], &m.Header); err != nil {
		return nil, fmt.Errorf("kernel: malformed message header: %w", err)
	}
	if m.Header.MsgType == "" {
		return nil, errors.New("kernel: message header without msg_type")
	}
	for _, part := range []struct {
		name string
		raw  json.RawMessage
	}{{"parent header", m.ParentHeader}, {"metadata", m.Metadata}, {"content", m.Content}} {
		if !isJSONObject(part.raw) {
			return nil, fmt.Errorf("kernel: %s of %s is not a JSON object", part.name, m.Header.MsgType)
		}
	}
	return m, nil
}

// isJSONObject reports whether raw is a valid JSON object.
func isJSONObject(raw []byte) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(raw, &v) == nil && v != nil
}

// Encode returns the frames of m, signed with key (unsigned when key is empty).
func Encode(m *Message, key []byte) ([][]byte, error) {
	header, err := json.Marshal(m.Header)
	if err != nil {
		return nil, fmt.Errorf("kernel: encode header: %w", err)
	}
	parts := [][]byte{header, orEmpty(m.ParentHeader), orEmpty(m.Metadata), orEmpty(m.Content)}
	sig := ""
	if len(key) > 0 {
		sig = hex.EncodeToString(sign(key, parts...))
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, delimiter, []byte(sig))
	frames = append(frames, parts...)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

func orEmpty(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return []byte("{}")
	}
	return raw
}

// sign is HMAC-SHA256 over the concatenated parts, as the protocol specifies.
func sign(key []byte, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// NewHeader returns a header for a new message of type msgType in session.
func NewHeader(msgType, session, username string) Header {
	return Header{
		MsgID:    NewID(),
		Session:  session,
		Username: username,
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

// NewID returns a random UUID (version 4) in its canonical text form.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("kernel: no randomness for message ids: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewMessage builds a message of type msgType whose parent is parent (nil for none) and whose
// content is the JSON encoding of content.
func NewMessage(msgType, session string, parent *Message, content any) (*Message, error) {
	c, err := json.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("kernel: encode %s content: %w", msgType, err)
	}
	m := &Message{
		Header:       NewHeader(msgType, session, "kernel"),
		ParentHeader: json.RawMessage("{}"),
		Metadata:     json.RawMessage("{}"),
		Content:      c,
	}
	if parent != nil {
		m.ParentHeader = parent.RawHeader
		m.Identities = parent.Identities
	}
	return m, nil
}
