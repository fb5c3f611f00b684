package nbtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gosbi/gosbi/internal/ipc"
	"github.com/gosbi/gosbi/internal/kernel"
)

func iopub(t *testing.T, msgType string, content, metadata map[string]any) *kernel.Message {
	t.Helper()
	m, err := kernel.NewMessage(msgType, "s", nil, content)
	if err != nil {
		t.Fatal(err)
	}
	if metadata != nil {
		m.Metadata, _ = json.Marshal(metadata)
	}
	return m
}

func stream(t *testing.T, name, text string) *kernel.Message {
	return iopub(t, "stream", map[string]any{"name": name, "text": text}, nil)
}

var truncatedRE = regexp.MustCompile(`\[output truncated: (about )?([0-9.]+)(B|KiB|MiB) of this cell's output are not saved here`)

// omittedBytes returns the sizes the truncation notes of text report, in bytes.
func omittedBytes(t *testing.T, text string) []float64 {
	t.Helper()
	var out []float64
	for _, m := range truncatedRE.FindAllStringSubmatch(text, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		out = append(out, v*map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20}[m[3]])
	}
	return out
}

// TestAccumulatorCapsStreams feeds a cell's worth of iopub messages to the accumulator with a
// budget of 64 KiB: the saved stream text is the first and the last 32 KiB, in order, with a
// note between them that states exactly how much was left out; the result after the flood is
// kept, characters are never split, and small outputs are untouched.
func TestAccumulatorCapsStreams(t *testing.T) {
	const max = 64 << 10
	t.Run("small", func(t *testing.T) {
		cell := &Cell{}
		a := newAccumulator(cell, max)
		a.add(stream(t, "stdout", "a\n"))
		a.add(stream(t, "stdout", "b\n"))
		a.add(stream(t, "stderr", "e\n"))
		a.finish()
		if len(cell.Outputs) != 2 || cell.Outputs[0].Text != "a\nb\n" || cell.Outputs[1].Text != "e\n" {
			t.Errorf("outputs %+v", cell.Outputs)
		}
	})
	t.Run("flood", func(t *testing.T) {
		cell := &Cell{}
		a := newAccumulator(cell, max)
		var all strings.Builder
		for i := range 4000 { // 4000 lines of 100 bytes, with two-byte characters
			line := fmt.Sprintf("%05d %s\n", i, strings.Repeat("é", 47))
			all.WriteString(line)
			a.add(stream(t, "stdout", line))
		}
		a.add(iopub(t, "execute_result", map[string]any{"data": map[string]any{"text/plain": "42"}}, nil))
		a.finish()
		types := []string{}
		for _, o := range cell.Outputs {
			types = append(types, o.OutputType+":"+o.Name)
		}
		if strings.Join(types, " ") != "stream:stdout stream:stderr stream:stdout execute_result:" {
			t.Fatalf("outputs %v, want the head, the note, the tail and the result", types)
		}
		head, note, tail := cell.Outputs[0].Text, cell.Outputs[1].Text, cell.Outputs[2].Text
		text := all.String()
		if !strings.HasPrefix(text, head) || !strings.HasSuffix(text, tail) {
			t.Errorf("the saved output is not the start and the end of the cell's output")
		}
		if len(head) > max/2 || len(head) < max/2-1 || len(tail) > max/2 || len(tail) < max/2-1 {
			t.Errorf("kept %d + %d bytes, want %d each", len(head), len(tail), max/2)
		}
		if !utf8.ValidString(head) || !utf8.ValidString(tail) {
			t.Errorf("a character was split")
		}
		if got := omittedBytes(t, note); len(got) != 1 || got[0] < 0.999*float64(len(text)-len(head)-len(tail)) || got[0] > 1.001*float64(len(text)-len(head)-len(tail)) {
			t.Errorf("note %q reports %v bytes, want %d", note, got, len(text)-len(head)-len(tail))
		}
		if !strings.Contains(note, "--max-output 64KiB") {
			t.Errorf("the note does not state the limit and its flag: %q", note)
		}
	})
	t.Run("display between floods", func(t *testing.T) {
		cell := &Cell{}
		a := newAccumulator(cell, max)
		total := 0
		for part := range 3 {
			for range 1000 {
				line := strings.Repeat("x", 99) + "\n"
				total += len(line)
				a.add(stream(t, "stdout", line))
			}
			a.add(iopub(t, "display_data", map[string]any{"data": map[string]any{"text/plain": fmt.Sprint("figure ", part)}}, nil))
		}
		a.finish()
		kept, omitted, figures := 0, 0.0, 0
		for _, o := range cell.Outputs {
			switch {
			case o.OutputType == "display_data":
				figures++
			case o.Name == "stderr":
				for _, b := range omittedBytes(t, o.Text) {
					omitted += b
				}
			default:
				kept += len(o.Text)
			}
		}
		if figures != 3 {
			t.Errorf("%d figures kept, want 3", figures)
		}
		if kept > max {
			t.Errorf("%d bytes of stream output kept, more than the %d allowed", kept, max)
		}
		if float64(kept)+omitted < 0.999*float64(total) || float64(kept)+omitted > 1.001*float64(total) {
			t.Errorf("kept %d and reported %v omitted of %d", kept, omitted, total)
		}
	})
	t.Run("kernel's loss note", func(t *testing.T) {
		cell := &Cell{}
		a := newAccumulator(cell, max)
		line := strings.Repeat("y", 1023) + "\n"
		for range 40 {
			a.add(stream(t, "stdout", line))
		}
		// The kernel dropped 5 MiB for this client here, then more output came.
		a.add(iopub(t, "stream", map[string]any{"name": "stderr", "text": "[gosbi: 80 output messages were not sent]\n"},
			map[string]any{kernel.LossMetadata: map[string]int{"messages": 80, "bytes": 5 << 20}}))
		for range 40 {
			a.add(stream(t, "stdout", line))
		}
		a.finish()
		var notes []float64
		about := false
		for _, o := range cell.Outputs {
			if o.Name == "stderr" {
				notes = append(notes, omittedBytes(t, o.Text)...)
				about = about || strings.Contains(o.Text, "about ")
			}
		}
		want := 8<<10 + 5<<20 // 8 KiB of lines and the 5 MiB the kernel dropped
		if len(notes) != 1 || notes[0] < 0.99*float64(want) || notes[0] > 1.01*float64(want) || !about {
			t.Errorf("notes report %v bytes (about: %v), want about %d", notes, about, want)
		}
	})
	t.Run("clear output", func(t *testing.T) {
		cell := &Cell{}
		a := newAccumulator(cell, max)
		for range 200 {
			a.add(stream(t, "stdout", strings.Repeat("z", 1023)+"\n"))
		}
		a.add(iopub(t, "clear_output", map[string]any{"wait": false}, nil))
		a.add(stream(t, "stdout", "fresh\n"))
		a.finish()
		if len(cell.Outputs) != 1 || cell.Outputs[0].Text != "fresh\n" {
			t.Errorf("after clear_output the cell holds %d outputs, want the fresh line only", len(cell.Outputs))
		}
	})
}

// TestAccumulatorRunBudget checks what counts in the run's budget of outputs (MaxRunOutput):
// what the cells hold, not what came, so that a display updated or cleared and redrawn many
// times, or a stream at its --max-output window, does not use it up; the cells of a run share
// it, and the output that does not fit is not kept, nor anything after it.
func TestAccumulatorRunBudget(t *testing.T) {
	kib := strings.Repeat("k", 1<<10)
	display := func(id string) *kernel.Message {
		return iopub(t, "display_data", map[string]any{"data": map[string]any{"text/plain": kib}, "metadata": map[string]any{},
			"transient": map[string]any{"display_id": id}}, nil)
	}
	update := func(id string) *kernel.Message {
		return iopub(t, "update_display_data", map[string]any{"data": map[string]any{"text/plain": kib}, "metadata": map[string]any{},
			"transient": map[string]any{"display_id": id}}, nil)
	}
	run := func(budget int, cells ...[]*kernel.Message) (*runBudget, []*Cell) {
		b := newRunBudget(budget)
		var out []*Cell
		for _, msgs := range cells {
			cell := &Cell{}
			a := newAccumulator(cell, 4<<10)
			a.budget = b
			for _, m := range msgs {
				a.add(m)
			}
			a.finish()
			out = append(out, cell)
		}
		return b, out
	}
	spent := func(b *runBudget) bool {
		select {
		case <-b.over:
			return true
		default:
			return false
		}
	}
	var updates, redraws, flood []*kernel.Message
	updates = append(updates, display("bar"))
	for range 100 {
		updates = append(updates, update("bar"))
		redraws = append(redraws, iopub(t, "clear_output", map[string]any{"wait": true}, nil), display(""))
	}
	for range 100 {
		flood = append(flood, stream(t, "stdout", kib))
	}
	updates = append(updates, stream(t, "stdout", "done\n"))
	redraws = append(redraws, stream(t, "stdout", "done\n"))
	for _, tc := range []struct {
		name  string
		cells [][]*kernel.Message
	}{{"updates", [][]*kernel.Message{updates}}, {"redraws", [][]*kernel.Message{redraws}}, {"stream window", [][]*kernel.Message{flood}}} {
		b, cells := run(4<<10, tc.cells...) // the stream window is 4KiB too
		if spent(b) || len(cells[0].Outputs) == 0 {
			t.Errorf("%s: the budget of 4KiB is spent (%d bytes kept), want it to count what the cell holds", tc.name, b.done)
		}
	}
	b, cells := run(3000, []*kernel.Message{display("a")}, []*kernel.Message{display("b")}, []*kernel.Message{display("c"), stream(t, "stdout", "after\n")})
	if !spent(b) || len(cells[0].Outputs) != 1 || len(cells[1].Outputs) != 1 || len(cells[2].Outputs) != 0 {
		t.Errorf("three cells of a 1KiB display each in a budget of 3000 bytes: spent %v, outputs %d, %d, %d; want 1, 1, 0",
			spent(b), len(cells[0].Outputs), len(cells[1].Outputs), len(cells[2].Outputs))
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{{"16MiB", 16 << 20}, {"512KiB", 512 << 10}, {"1GiB", 1 << 30}, {"16MB", 16e6}, {"8m", 8 << 20}, {"4096", 4096}, {"1.5MiB", 3 << 19}} {
		if got, err := parseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v, want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", "-1MiB", "lots", "2GiB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) succeeded", bad)
		}
	}
}

// TestRunUsageStatesDisplayLimit checks that the help of gosbi run states the limit the kernel
// puts on one display output (ipc.MaxMessage), rather than calling displays unlimited, and the
// limits on the outputs of a run (MaxRunOutput) and on the size of a notebook file
// (MaxNotebookSize).
func TestRunUsageStatesDisplayLimit(t *testing.T) {
	if want := byteSize(ipc.MaxMessage); !strings.Contains(runUsage, want) || strings.Contains(runUsage, "are not limited") {
		t.Errorf("the usage of gosbi run does not state the %s limit of a display output:\n%s", want, runUsage)
	}
	for _, want := range []string{"A notebook file is at most " + byteSize(MaxNotebookSize), "every cell's together, are at most " + byteSize(int64(MaxRunOutput))} {
		if !strings.Contains(strings.ReplaceAll(runUsage, "\n", " "), want) {
			t.Errorf("the usage of gosbi run does not say %q:\n%s", want, runUsage)
		}
	}
}
