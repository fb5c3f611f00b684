package ipc

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	reqs := []Request{
		{ID: "1", Type: Execute, Code: "x := 1\nx", ExecutionCount: 3, StoreHistory: true},
		{ID: "2", Type: Complete, Code: "fmt.Pr", CursorPos: 6},
		{ID: "3", Type: Interrupt},
	}
	for _, r := range reqs {
		if err := enc.Send(r); err != nil {
			t.Fatal(err)
		}
	}
	dec := NewDecoder(&buf)
	for _, want := range reqs {
		var got Request
		if err := dec.Next(&got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
	var r Request
	if err := dec.Next(&r); !errors.Is(err, io.EOF) {
		t.Errorf("after the last message: got %v, want io.EOF", err)
	}
}

func TestMalformed(t *testing.T) {
	dec := NewDecoder(bytes.NewBufferString("{not json}\n"))
	var ev Event
	if err := dec.Next(&ev); err == nil {
		t.Fatal("malformed JSON decoded without error")
	}
}
