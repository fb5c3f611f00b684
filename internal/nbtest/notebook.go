package nbtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/gosbi/gosbi/internal/readlimit"
)

// Notebook is a Jupyter notebook in nbformat 4. Fields the runner does not use are kept as they
// were read.
type Notebook struct {
	Cells         []*Cell        `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

// Cell is one cell of a notebook.
type Cell struct {
	ID             string          `json:"id,omitempty"`
	CellType       string          `json:"cell_type"`
	Metadata       map[string]any  `json:"metadata"`
	Source         string          `json:"-"`
	Outputs        []*Output       `json:"-"`
	ExecutionCount *int            `json:"-"`
	Attachments    json.RawMessage `json:"attachments,omitempty"`
}

// Output is one output of a code cell.
type Output struct {
	OutputType     string         `json:"output_type"`
	Name           string         `json:"name,omitempty"`      // stream
	Text           string         `json:"-"`                   // stream
	Data           map[string]any `json:"data,omitempty"`      // display_data, execute_result
	Metadata       map[string]any `json:"metadata,omitempty"`  // display_data, execute_result
	ExecutionCount *int           `json:"-"`                   // execute_result
	Ename          string         `json:"ename,omitempty"`     // error
	Evalue         string         `json:"evalue,omitempty"`    // error
	Traceback      []string       `json:"traceback,omitempty"` // error
}

// multiline decodes nbformat's "multiline string": a string or a list of strings.
func multiline(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("want a string or a list of strings: %w", err)
	}
	return strings.Join(parts, ""), nil
}

// lines splits s into lines that keep their "\n", as nbformat stores multiline strings.
func lines(s string) []string {
	out := []string{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func (c *Cell) UnmarshalJSON(b []byte) error {
	type plain Cell
	var aux struct {
		plain
		Source         json.RawMessage `json:"source"`
		Outputs        []*Output       `json:"outputs"`
		ExecutionCount *int            `json:"execution_count"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*c = Cell(aux.plain)
	src, err := multiline(aux.Source)
	if err != nil {
		return fmt.Errorf("cell source: %w", err)
	}
	c.Source, c.Outputs, c.ExecutionCount = src, aux.Outputs, aux.ExecutionCount
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	return nil
}

func (c *Cell) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"cell_type": c.CellType,
		"metadata":  orEmptyMap(c.Metadata),
		"source":    lines(c.Source),
	}
	if c.ID != "" {
		m["id"] = c.ID
	}
	if len(c.Attachments) > 0 {
		m["attachments"] = c.Attachments
	}
	if c.CellType == "code" {
		outs := c.Outputs
		if outs == nil {
			outs = []*Output{}
		}
		m["outputs"] = outs
		m["execution_count"] = c.ExecutionCount
	}
	return json.Marshal(m)
}

func (o *Output) UnmarshalJSON(b []byte) error {
	type plain Output
	var aux struct {
		plain
		Text           json.RawMessage `json:"text"`
		ExecutionCount *int            `json:"execution_count"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*o = Output(aux.plain)
	text, err := multiline(aux.Text)
	if err != nil {
		return fmt.Errorf("stream text: %w", err)
	}
	o.Text, o.ExecutionCount = text, aux.ExecutionCount
	return nil
}

func (o *Output) MarshalJSON() ([]byte, error) {
	m := map[string]any{"output_type": o.OutputType}
	switch o.OutputType {
	case "stream":
		m["name"], m["text"] = o.Name, lines(o.Text)
	case "display_data", "execute_result":
		m["data"], m["metadata"] = storedData(o.Data), orEmptyMap(o.Metadata)
		if o.OutputType == "execute_result" {
			m["execution_count"] = o.ExecutionCount
		}
	case "error":
		tb := o.Traceback
		if tb == nil {
			tb = []string{}
		}
		m["ename"], m["evalue"], m["traceback"] = o.Ename, o.Evalue, tb
	}
	return json.Marshal(m)
}

// storedData writes text MIME types as lists of lines (as Jupyter saves them); JSON types stay
// objects and binary (base64) data stays one string.
func storedData(data map[string]any) map[string]any {
	out := make(map[string]any, len(data))
	for mime, v := range data {
		if s, ok := v.(string); ok && (strings.HasPrefix(mime, "text/") || mime == "image/svg+xml") {
			out[mime] = lines(s)
			continue
		}
		out[mime] = v
	}
	return out
}

func orEmptyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// MaxNotebookSize is the largest notebook file ReadNotebook reads, in bytes: a notebook is
// read and decoded whole in memory. It is larger than MaxRunOutput, so that a notebook saved
// by gosbi run can be read again. It is a variable so that tests can lower it.
var MaxNotebookSize int64 = 2 << 30

// ReadNotebook reads an .ipynb file.
func ReadNotebook(path string) (*Notebook, error) {
	nb, _, err := readNotebook(path)
	return nb, err
}

// readNotebook is ReadNotebook that also returns the SHA-256 of the file's bytes.
func readNotebook(path string) (*Notebook, [sha256.Size]byte, error) {
	b, err := readNotebookFile(path)
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	nb, err := ParseNotebook(b)
	if err != nil {
		return nil, [sha256.Size]byte{}, fmt.Errorf("nbtest: %s: %w", path, err)
	}
	return nb, sha256.Sum256(b), nil
}

// readNotebookFile returns the bytes of the file at path, after checking that it holds at
// most MaxNotebookSize (also while it is read, in case it grows meanwhile).
func readNotebookFile(path string) ([]byte, error) {
	b, err := readlimit.File(path, "a notebook", MaxNotebookSize)
	var large *readlimit.TooLargeError
	if errors.As(err, &large) {
		return nil, notebookTooLarge(path, large.Size)
	}
	if err != nil {
		return nil, fmt.Errorf("nbtest: read notebook: %w", err)
	}
	return b, nil
}

// notebookTooLarge is the error for a notebook file of size bytes, over MaxNotebookSize.
func notebookTooLarge(path string, size int64) error {
	return fmt.Errorf("nbtest: %s is %s (%d bytes), more than the %s a notebook may be (it is read whole into memory): "+
		"clear its outputs (jupyter nbconvert --clear-output --inplace %s) or move large data out of it into files",
		path, byteSize(size), size, byteSize(MaxNotebookSize), path)
}

// fileSum returns the SHA-256 of the file at path, read as a stream.
func fileSum(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// ParseNotebook decodes a notebook and upgrades it to nbformat 4.5 (every cell gets an id).
func ParseNotebook(b []byte) (*Notebook, error) {
	var nb Notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("not a valid notebook (JSON): %w", err)
	}
	switch nb.NBFormat {
	case 4:
	case 0:
		return nil, fmt.Errorf("no nbformat field: not a Jupyter notebook (want a JSON object with \"nbformat\": 4 and its cells)")
	default:
		return nil, fmt.Errorf("nbformat %d is not supported: open and save the notebook with Jupyter to convert it to nbformat 4", nb.NBFormat)
	}
	for i, c := range nb.Cells {
		if c == nil {
			return nil, fmt.Errorf("cell %d is null: every cell must be an object with a cell_type and a source", i+1)
		}
		switch c.CellType {
		case "code", "markdown", "raw": // nbformat 4's cell types
		default:
			return nil, fmt.Errorf("cell %d has cell_type %q: nbformat 4 knows code, markdown and raw; fix the cell with Jupyter or an editor", i+1, c.CellType)
		}
		for j, o := range c.Outputs {
			if o == nil {
				return nil, fmt.Errorf("output %d of cell %d is null: every output must be an object with an output_type", j+1, i+1)
			}
		}
	}
	for _, data := range nb.allData() {
		for mime, v := range data {
			if parts, ok := v.([]any); ok && !strings.HasSuffix(mime, "json") {
				var b strings.Builder
				for _, p := range parts {
					s, _ := p.(string)
					b.WriteString(s)
				}
				data[mime] = b.String()
			}
		}
	}
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	if nb.NBFormatMinor < 5 {
		nb.NBFormatMinor = 5
	}
	seen := map[string]bool{}
	for _, c := range nb.Cells {
		if c.ID == "" || seen[c.ID] || !validID.MatchString(c.ID) {
			c.ID = newCellID()
		}
		seen[c.ID] = true
	}
	return &nb, nil
}

var validID = regexp.MustCompile(`^[a-zA-Z0-9-_]{1,64}$`)

func (nb *Notebook) allData() []map[string]any {
	var out []map[string]any
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if o.Data != nil {
				out = append(out, o.Data)
			}
		}
	}
	return out
}

func newCellID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Marshal encodes the notebook as Jupyter writes it (indented by one space, a final newline).
func (nb *Notebook) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return nil, fmt.Errorf("nbtest: encode notebook: %w", err)
	}
	return append(b, '\n'), nil
}

// Tags returns the cell's tags (metadata.tags).
func (c *Cell) Tags() []string {
	raw, _ := c.Metadata["tags"].([]any)
	var tags []string
	for _, t := range raw {
		if s, ok := t.(string); ok {
			tags = append(tags, s)
		}
	}
	return tags
}

// HasTag reports whether the cell carries tag.
func (c *Cell) HasTag(tag string) bool {
	for _, t := range c.Tags() {
		if t == tag {
			return true
		}
	}
	return false
}
