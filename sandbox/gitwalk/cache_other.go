//go:build !linux

package gitwalk

// Cache keeps the walk for git directories between runs on Linux
// (cache_linux.go); elsewhere there is no walk to keep.
type Cache struct{}

// Close does nothing where there is no walk.
func (c *Cache) Close() error { return nil }

// Walks is always 0: there is no walk to keep.
func (c *Cache) Walks() int { return 0 }

func (c *Cache) walk(order, roots []string) (found, unseen []string, complete bool) {
	return nil, append([]string(nil), order...), false
}
