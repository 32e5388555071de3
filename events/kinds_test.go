package events

// Kinds returns every known record kind, inputs first.
func Kinds() []RecordKind {
	out := make([]RecordKind, len(kindTable))
	for i, e := range kindTable {
		out[i] = e.kind
	}
	return out
}
