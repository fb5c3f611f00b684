package kernel

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/cmdflag"
	"github.com/gosbi/gosbi/internal/install"
)

// InstallConfig says where to install the kernelspec. At most one of User, SysPrefix and
// Prefix may be set; none means User.
type InstallConfig struct {
	User      bool   // the user's Jupyter data directory ($JUPYTER_DATA_DIR if set)
	SysPrefix bool   // the data directory of the Python environment that runs Jupyter
	Prefix    string // PREFIX/share/jupyter
	// Binary is the gosbi executable the kernelspec starts (default: this executable). A binary
	// in a temporary directory (as `go run` builds) is copied next to kernel.json.
	Binary string
}

// Install writes the kernelspec "gosbi" (kernel.json and logos) and returns its directory.
func Install(cfg InstallConfig) (string, error) {
	n := 0
	for _, set := range []bool{cfg.User, cfg.SysPrefix, cfg.Prefix != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return "", errors.New("install: give at most one of --user, --sys-prefix and --prefix")
	}
	var data string
	var err error
	switch {
	case cfg.Prefix != "":
		data = filepath.Join(cfg.Prefix, "share", "jupyter")
	case cfg.SysPrefix:
		data, err = sysPrefixDataDir()
	default:
		data, err = userDataDir()
	}
	if err != nil {
		return "", err
	}
	dir := filepath.Join(data, "kernels", install.KernelName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	bin := cfg.Binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return "", fmt.Errorf("install: find the gosbi executable: %w", err)
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	if isTemporary(bin) {
		copied := filepath.Join(dir, "gosbi"+filepath.Ext(bin))
		if err := copyFile(bin, copied); err != nil {
			return "", fmt.Errorf("install: copy the temporary binary %s into the kernelspec: %w", bin, err)
		}
		bin = copied
	}
	spec, err := install.KernelJSON(bin)
	if err != nil {
		return "", err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "kernel.json"), spec, 0o644); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	for _, size := range install.LogoSizes {
		b, err := install.LogoFile(size)
		if err != nil {
			return "", err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, install.LogoName(size)), b, 0o644); err != nil {
			return "", fmt.Errorf("install: %w", err)
		}
	}
	return dir, nil
}

// userDataDir is Jupyter's per-user data directory.
func userDataDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("install: no home directory: set JUPYTER_DATA_DIR or use --prefix: %w", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		if app := os.Getenv("APPDATA"); app != "" {
			return filepath.Join(app, "jupyter"), nil
		}
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "jupyter"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}

// sysPrefixDataDir is the data directory of the active Python environment (a virtualenv or a
// conda environment), or of the environment that holds the jupyter command.
func sysPrefixDataDir() (string, error) {
	for _, v := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := os.Getenv(v); p != "" {
			return filepath.Join(p, "share", "jupyter"), nil
		}
	}
	if j, err := exec.LookPath("jupyter"); err == nil {
		if j, err = filepath.EvalSymlinks(j); err == nil {
			return filepath.Join(filepath.Dir(filepath.Dir(j)), "share", "jupyter"), nil
		}
	}
	return "", errors.New("install: --sys-prefix needs an active virtualenv or conda environment, or jupyter on PATH; use --user or --prefix DIR instead")
}

// isTemporary reports whether bin lives where it will soon be deleted (go run's build directory).
func isTemporary(bin string) bool {
	tmp := filepath.Clean(os.TempDir()) + string(filepath.Separator)
	return strings.HasPrefix(bin, tmp) && strings.Contains(bin, "go-build")
}

// copyFile copies the executable src to dst atomically (see package atomicfile).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.Write(dst, 0o755, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// InstallMain is `gosbi install [--user|--sys-prefix|--prefix DIR]`.
func InstallMain(args []string) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	var opts InstallConfig
	fs.BoolVar(&opts.User, "user", false, "install for the current user (default; honours $JUPYTER_DATA_DIR)")
	fs.BoolVar(&opts.SysPrefix, "sys-prefix", false, "install into the active Python environment (virtualenv or conda)")
	fs.StringVar(&opts.Prefix, "prefix", "", "install into `DIR`/share/jupyter/kernels/gosbi")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: gosbi install [--user | --sys-prefix | --prefix DIR]\n\n")
		fs.PrintDefaults()
	}
	if err := cmdflag.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: see gosbi install -h", fs.Args())
	}
	emptyPrefix := false
	fs.Visit(func(f *flag.Flag) { emptyPrefix = emptyPrefix || f.Name == "prefix" && opts.Prefix == "" })
	if emptyPrefix {
		return errors.New("--prefix needs a directory (--prefix DIR installs into DIR/share/jupyter/kernels/gosbi)")
	}
	dir, err := Install(opts)
	if err != nil {
		return err
	}
	fmt.Printf("installed the Jupyter kernelspec %q in %s\n", install.KernelName, dir)
	return nil
}
