package nn

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParamsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 31))
	src := NewMLP(rng, []int{5, 8, 8, 69}, Tanh).Params()
	// special values must survive bit for bit
	src[0].Data[0], src[0].Data[1], src[0].Data[2] = math.Copysign(0, -1), math.Inf(-1), math.Float64frombits(0x7ff8000000000abc)
	var buf bytes.Buffer
	if err := WriteParams(&buf, src); err != nil {
		t.Fatal(err)
	}
	dst := NewMLP(rand.New(rand.NewPCG(99, 99)), []int{5, 8, 8, 69}, Tanh).Params()
	if err := ReadParams(bytes.NewReader(buf.Bytes()), dst); err != nil {
		t.Fatal(err)
	}
	for k := range src {
		for i := range src[k].Data {
			if math.Float64bits(src[k].Data[i]) != math.Float64bits(dst[k].Data[i]) {
				t.Fatalf("%s[%d]: wrote %v, read %v", src[k].Name, i, src[k].Data[i], dst[k].Data[i])
			}
		}
	}
}

func TestParamsReadErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 33))
	src := NewMLP(rng, []int{2, 4, 1}, ReLU).Params()
	good := MarshalParams(src)
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 1
	newer := bytes.Clone(good)
	newer[len(paramMagic)] = 9
	cases := []struct {
		name string
		data []byte
		dst  []*Param
		want string
	}{
		{"not a file", []byte("hello, this is not a parameter file"), src, "bad header"},
		{"corrupted", flipped, src, "checksum"},
		{"truncated", good[:len(good)-9], src, "checksum"},
		{"newer version", newer, src, "checksum"}, // the checksum covers the version too
		{"other architecture", good, NewMLP(rng, []int{2, 5, 1}, ReLU).Params(), "architecture"},
		{"fewer parameters", good, NewMLP(rng, []int{2, 1}, ReLU).Params(), "holds 4 parameters"},
	}
	for _, c := range cases {
		before := MarshalParams(c.dst)
		err := UnmarshalParams(c.data, c.dst)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
		if !bytes.Equal(before, MarshalParams(c.dst)) {
			t.Errorf("%s: a failed read changed the parameters", c.name)
		}
	}
}

// endless yields the bytes of head, then zeros without end, counting what was read.
type endless struct {
	head []byte
	read int
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.head)
	e.head = e.head[n:]
	clear(p[n:])
	e.read += len(p)
	return len(p), nil
}

// TestReadParamsBoundsInput checks that ReadParams reads at most one byte more than the
// model's parameters take: it read the stream to its end (io.ReadAll), so a wrong file or an
// endless stream filled the memory before any check.
func TestReadParamsBoundsInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 35))
	ps := NewMLP(rng, []int{2, 4, 1}, ReLU).Params()
	good := MarshalParams(ps)
	if n := paramsSize(ps); n != len(good) {
		t.Fatalf("paramsSize = %d, MarshalParams wrote %d bytes", n, len(good))
	}
	r := &endless{head: good}
	err := ReadParams(io.LimitReader(r, 8<<20), ps)
	if err == nil || !strings.Contains(err.Error(), "longer") {
		t.Errorf("error %v, want one saying the stream is longer than the parameters", err)
	}
	if r.read > len(good)+1 {
		t.Errorf("read %d bytes for parameters of %d", r.read, len(good))
	}
	if err := ReadParams(bytes.NewReader(good), ps); err != nil {
		t.Errorf("reading the exact file: %v", err)
	}
}
