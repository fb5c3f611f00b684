package install

import (
	"bytes"
	"encoding/json"
	"image/png"
	"testing"
)

// TestLogosUpToDate checks that the committed logo files are what Logo draws (run
// `go generate ./install` after changing the drawing).
func TestLogosUpToDate(t *testing.T) {
	for _, size := range LogoSizes {
		committed, err := LogoFile(size)
		if err != nil {
			t.Fatal(err)
		}
		want, err := EncodeLogo(size)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(committed, want) {
			t.Errorf("%s is stale: run go generate ./install", LogoName(size))
		}
		img, err := png.Decode(bytes.NewReader(committed))
		if err != nil {
			t.Fatalf("%s: %v", LogoName(size), err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Errorf("%s is %v", LogoName(size), b)
		}
		// The corners are transparent (rounded square), the centre is opaque.
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("%s: corner alpha %d, want 0", LogoName(size), a)
		}
		if _, _, _, a := img.At(size/2, size/2).RGBA(); a != 0xffff {
			t.Errorf("%s: centre alpha %d, want opaque", LogoName(size), a)
		}
	}
}

func TestKernelJSON(t *testing.T) {
	b, err := KernelJSON(`/opt/go sbi/"gosbi"`)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Argv          []string `json:"argv"`
		DisplayName   string   `json:"display_name"`
		Language      string   `json:"language"`
		InterruptMode string   `json:"interrupt_mode"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatalf("kernel.json is not JSON: %v\n%s", err, b)
	}
	want := []string{`/opt/go sbi/"gosbi"`, "kernel", "-f", "{connection_file}"}
	if len(spec.Argv) != len(want) {
		t.Fatalf("argv %q, want %q", spec.Argv, want)
	}
	for i := range want {
		if spec.Argv[i] != want[i] {
			t.Errorf("argv %q, want %q", spec.Argv, want)
		}
	}
	if spec.DisplayName != "Go (gosbi)" || spec.Language != "go" || spec.InterruptMode != "message" {
		t.Errorf("kernel.json %s", b)
	}
}
