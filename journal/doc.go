// Package journal stores one session's records in one bbolt file.
//
// Append buffers a record in memory; Commit writes every buffered record in
// one bbolt Update, which is one fsync: the durable point. The engine
// commits before a process starts, before a model request goes out, when an
// approval request is sent and when a turn ends; everything else rides on the
// next commit. Commits counts the durable commits so tests and benchmarks can
// hold the engine to one per executed call.
//
// Layout inside the file: bucket "records" maps an 8-byte big-endian seq to
// an events.Record envelope; bucket "calls" maps callID NUL seq to nothing,
// so one call's records are a prefix scan; bucket "meta" holds the session
// id and format version.
//
// Damage never panics: reads verify every record's CRC-32C and stop at the
// first bad one with a *DamagedError naming the file and the last good seq.
// Faults inside bbolt's mmap (a truncated file) are turned into errors, and
// when bbolt cannot open the file at all, a raw page scan salvages every
// intact record that precedes the damage.
package journal
