// Package outfile writes the files the project's commands are told to write (schedbench's -o,
// the course page's -o) so that no destination is harmed, whatever is there and whoever runs
// the command (root included), and no reader ever sees half a file.
//
// A destination is examined by [Create] when the command starts, before any work, and refused
// then if it cannot be written; what [File.Commit] then does depends on what was there:
//
//   - Nothing: the output goes into a temporary file of the destination's directory, named
//     .NAME.schedbench-PID-RANDOM.tmp, renamed to NAME once complete (mode 0644): the rename(2)
//     is atomic, so a reader sees the old file or the whole new one.
//   - A regular file: the same, and the new file gets the old one's mode (setuid, setgid and
//     sticky bits included) and owner before the rename. A file with other hard links, or one
//     whose owner this process cannot give the new file (chown(2) refused), is instead
//     overwritten in place (O_WRONLY|O_TRUNC) from the complete temporary file, so that it
//     stays the same inode: its links and its owner are kept.
//   - A symbolic link: followed, and the rules apply to the file it names (its directory holds
//     the temporary file); the link stays. A link to nothing is refused.
//   - A character device (/dev/null, /dev/full, a terminal): opened for writing
//     (O_WRONLY|O_TRUNC) and written through, never replaced; a write error (ENOSPC from
//     /dev/full) is the command's error.
//   - A FIFO: opened for writing without waiting for a reader (O_WRONLY|O_NONBLOCK), refused if
//     no process has it open for reading, then written through.
//   - A block device, a socket, a directory: refused ([Error]).
//
// Commit checks that the destination is still the file it was at Create: one replaced or
// created by another program meanwhile is left alone and the output is dropped, with an error.
//
// [CheckDir] does for a directory a command will fill (schedbench run -o DIR) what Create does
// for a file: before any work it checks that the directory, or its nearest existing ancestor,
// is a directory a file can be created in.
//
// Temporary files are removed when the output fails ([File.Abort]) and by [RemoveTemps], which a
// command calls when a signal ends it at once. One left by a process killed outright (SIGKILL),
// whose PID no longer runs, is removed by the next Create or CheckDir in the same directory.
package outfile
