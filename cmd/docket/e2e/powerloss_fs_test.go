package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// powerDisk is a FUSE file system over a backing directory that remembers
// what an fsync made durable, so a test can see the disk a power cut would
// leave: each file holds what it held at its last fsync (nothing if it was
// never synced), and each directory holds the entries it had at its last
// fsync (none it gained since). It is the POSIX worst case, which is what a
// journal must be written for; ext4 and others often keep more.
type powerDisk struct {
	backing, mount string
	server         *fuse.Server

	mu    sync.Mutex
	files map[string][]byte          // path -> contents at its last fsync
	dirs  map[string]map[string]bool // path -> entry -> is a directory, at its last fsync
}

// mountPowerDisk mounts a powerDisk and unmounts it when the test ends. It
// skips the test only when the machine has no FUSE device at all.
func mountPowerDisk(t *testing.T) *powerDisk {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("power-loss mode needs FUSE and this machine has no /dev/fuse: %v", err)
	}
	d := &powerDisk{backing: t.TempDir(), mount: t.TempDir(), files: map[string][]byte{},
		dirs: map[string]map[string]bool{"": {}}}
	lb, err := fs.NewLoopbackRoot(d.backing)
	if err != nil {
		t.Fatal(err)
	}
	root := &powerNode{LoopbackNode: lb.(*fs.LoopbackNode), disk: d}
	root.RootData.RootNode = root
	srv, err := fs.Mount(d.mount, root, &fs.Options{MountOptions: fuse.MountOptions{
		DirectMount: true, DirectMountStrict: true, FsName: "docket-powerloss"}})
	if err != nil {
		t.Fatalf("mount the power-loss FUSE file system at %s: %v", d.mount, err)
	}
	d.server = srv
	t.Cleanup(func() { _ = srv.Unmount() }) // a busy mount is released when the test binary exits
	return d
}

// powerNode is a loopback node whose fsyncs record durable state.
type powerNode struct {
	*fs.LoopbackNode
	disk *powerDisk
}

var (
	_ fs.NodeFsyncer        = (*powerNode)(nil)
	_ fs.NodeOpendirHandler = (*powerNode)(nil)
	_ fs.NodeWrapChilder    = (*powerNode)(nil)
)

// WrapChild makes every node the loopback creates a powerNode too.
func (n *powerNode) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &powerNode{LoopbackNode: ops.(*fs.LoopbackNode), disk: n.disk}
}

// rel is the node's path inside the file system.
func (n *powerNode) rel() string { return n.Path(n.Root()) }

// Fsync of a file keeps its contents as they are now.
func (n *powerNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if ff, ok := f.(fs.FileFsyncer); ok {
		if errno := ff.Fsync(ctx, flags); errno != 0 {
			return errno
		}
	}
	b, err := os.ReadFile(filepath.Join(n.disk.backing, n.rel()))
	if err != nil {
		return fs.ToErrno(err)
	}
	n.disk.mu.Lock()
	n.disk.files[n.rel()] = b
	n.disk.mu.Unlock()
	return 0
}

// OpendirHandle wraps the loopback directory handle so that its fsync
// (FSYNCDIR goes to the handle, not the node) records the entries.
func (n *powerNode) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	h, fl, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return h, fl, errno
	}
	return &powerDir{FileHandle: h, node: n}, fl, 0
}

// powerDir forwards a directory handle's calls and records its fsync.
type powerDir struct {
	fs.FileHandle
	node *powerNode
}

func (d *powerDir) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	return d.FileHandle.(fs.FileReaddirenter).Readdirent(ctx)
}

func (d *powerDir) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	return d.FileHandle.(fs.FileSeekdirer).Seekdir(ctx, off)
}

func (d *powerDir) Releasedir(ctx context.Context, flags uint32) {
	d.FileHandle.(fs.FileReleasedirer).Releasedir(ctx, flags)
}

func (d *powerDir) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	rel := d.node.rel()
	ents, err := os.ReadDir(filepath.Join(d.node.disk.backing, rel))
	if err != nil {
		return fs.ToErrno(err)
	}
	kept := map[string]bool{}
	for _, e := range ents {
		kept[e.Name()] = e.IsDir()
	}
	d.node.disk.mu.Lock()
	d.node.disk.dirs[rel] = kept
	d.node.disk.mu.Unlock()
	return 0
}

// cut writes the disk a power cut would leave into a new directory and
// returns it, with the paths the cut lost (entries never made durable).
func (d *powerDisk) cut(t *testing.T) (string, []string) {
	t.Helper()
	out := t.TempDir()
	d.mu.Lock()
	defer d.mu.Unlock()
	var lost []string
	// Every path is visited once: the walk follows recorded entries, and
	// a directory is only reached through its parent's entry.
	var walk func(rel string) error
	walk = func(rel string) error {
		kept, synced := d.dirs[rel]
		if !synced {
			kept = map[string]bool{}
		}
		names := make([]string, 0, len(kept))
		for name := range kept {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p := filepath.Join(rel, name)
			if kept[name] {
				if err := os.Mkdir(filepath.Join(out, p), 0o700); err != nil {
					return err
				}
				if err := walk(p); err != nil {
					return err
				}
				continue
			}
			if err := os.WriteFile(filepath.Join(out, p), d.files[p], 0o600); err != nil {
				return err
			}
		}
		// What exists now but was never made durable here is lost.
		ents, _ := os.ReadDir(filepath.Join(d.backing, rel))
		for _, e := range ents {
			if _, ok := kept[e.Name()]; !ok {
				lost = append(lost, filepath.Join(rel, e.Name()))
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		t.Fatalf("power cut image: %v", err)
	}
	return out, lost
}

func (d *powerDisk) String() string {
	return fmt.Sprintf("power-loss disk %s (backing %s)", d.mount, d.backing)
}
