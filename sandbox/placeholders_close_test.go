package sandbox

// Close releases every placeholder, removing those no other run holds.
func (ph *Placeholders) Close() error {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	for p, h := range ph.held {
		if h.f != nil {
			releasePlaceholder(h)
		}
		delete(ph.held, p)
	}
	return nil
}
