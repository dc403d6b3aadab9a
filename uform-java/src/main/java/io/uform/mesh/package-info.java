/**
 * The mesh's rendezvous: the processes of one multi-host run meet through files in
 * {@code <directory>/<job>/}, a directory every host sees (a local disk for processes of one host,
 * NFS or another shared file system across hosts). {@link io.uform.Mesh} is the public entry point
 * and {@link io.uform.mesh.FileRendezvous} the rendezvous it joins and leaves; see {@code docs/mesh.md}.
 *
 * <h2>Files</h2>
 * Every file is {@link java.util.Properties} text, written whole to {@code .tmp-<incarnation>-<name>}
 * and renamed onto its name atomically, so a reader sees a file complete or not at all. A member
 * record is hard-linked onto its name instead ({@code link(2)}, which, unlike a rename, fails when the
 * name is taken), so that of two processes claiming one index at the same moment exactly one holds it.
 * The <em>incarnation</em> is a random id of one bootstrap call: it tells two processes that claim one
 * index apart, and a file of this run from one of an earlier run.
 * <table>
 * <caption>Files of the job directory</caption>
 * <tr><th>file</th><th>written by</th><th>says</th><th>removed</th></tr>
 * <tr><td>{@code member-<i>.properties}</td><td>process {@code i}, first</td><td>its
 *     {@link io.uform.mesh.MemberRecord}: index, count, host, pid, devices,
 *     {@code gpusPerMultimemDomain}, protocol</td><td>by its writer when it leaves or fails</td></tr>
 * <tr><td>{@code ready-<i>.properties}</td><td>process {@code i}, once it has read every member's
 *     record and agrees with each</td><td>its index and incarnation</td><td>by its writer when it fails;
 *     otherwise with the directory</td></tr>
 * <tr><td>{@code left-<i>.properties}</td><td>process {@code i} when it leaves</td><td>its index,
 *     incarnation and the count</td><td>with the directory</td></tr>
 * <tr><td>{@code abort-<incarnation>.properties}</td><td>a process that gives up the bootstrap for
 *     everyone</td><td>who, the status and the reason</td><td>with the directory: by the last process
 *     of a failed run to give up, or by the last one out of the next run</td></tr>
 * <tr><td>{@code alive-<i>.properties}</td><td>process {@code i}, every refresh from its record's first
 *     write until it leaves or gives up, rewritten in place</td><td>its incarnation and a beat counter</td>
 *     <td>by its writer when it leaves or gives up; a dead one's by the process that found it dead (during
 *     the join) or with the directory</td></tr>
 * <tr><td>{@code dead-<i>.properties}</td><td>a process of a joined run that found process {@code i}
 *     dead</td><td>the dead one's index, incarnation, host, pid, who found it and why</td><td>with the
 *     directory; it stands for the {@code left-<i>} the dead one never writes</td></tr>
 * <tr><td>{@code broken.properties}</td><td>the first process of a joined run to find one dead, claimed
 *     with {@code link(2)} (first finder wins)</td><td>as {@code dead-<i>}</td><td>with the directory</td></tr>
 * </table>
 * Every file names the protocol version ({@link io.uform.mesh.FileRendezvous#PROTOCOL}); a record of
 * another version is a disagreement, checked before the record is parsed, so that the message names
 * both versions rather than a key the other version spells differently.
 *
 * <h2>Join</h2>
 * <ol>
 * <li>Look once at what the directory holds before writing anything ({@code Leftovers}). A run that
 *     finished (a {@code left-<i>} for every index of its count) is removed. Anything else an earlier
 *     run left is reported and this process gives up, naming each file's writer and the fix (remove the
 *     job directory, or use a new job name): see <em>Stale records</em>. A live record of this
 *     process's own index means two processes claim it: see <em>Failures</em>. {@code abort-*} files
 *     found here belong to an earlier attempt and are ignored.</li>
 * <li>Write {@code member-<i>}.</li>
 * <li>Poll every {@link io.uform.mesh.FileRendezvous#POLL_INTERVAL} ({@code Attempt}): list the
 *     directory, read each member record not read yet and check it agrees with this process
 *     ({@code Agreement}); a record the first look read is not read again while a lookup finds the
 *     same file under its name (key, modification time, size: {@code JobFiles.Identity}), so each
 *     peer's record is read once. Once every index has a record, write {@code ready-<i>} and, after
 *     its first write only, poll again at once (the peers may have written theirs meanwhile); once
 *     every index has a {@code ready-<j>} of the incarnation whose record was read, the join is
 *     complete.</li>
 * </ol>
 * Between two polls a process looks up, every
 * {@link io.uform.mesh.FileRendezvous#probeInterval(int) probe interval}, the one file it waits for (the
 * record of the lowest index not seen, else the {@code ready} of the lowest index not ready) and polls
 * at once when it appears: the join ends when the slowest process notices the last file, and a lookup
 * of one name costs far less than a poll. A file a lookup found counts as listed even where the
 * listing does not show it yet (an NFS client's cached listing).
 * The second barrier ({@code ready}) lets a fast process return and later leave without stranding a
 * slow one: a process returns only after every process has read every record, so removing its record
 * afterwards hides nothing from anyone. {@code ready} files stay until the directory goes.
 *
 * <h2>Failures: all or nothing</h2>
 * Within the timeout every process joins or every process fails; a failing process removes its own
 * {@code member} and {@code ready} files (only while they carry its incarnation). A process that finds
 * a disagreement, a second claim of its index, a peer dead (<em>Liveness</em>), runs out of time, is
 * interrupted or exits also writes
 * {@code abort-<incarnation>} with its status and message; every other process polling sees it and
 * fails at once with that status, naming who gave up and why. So two processes claiming index
 * {@code i} both fail naming both pids: the second sees the first's record at its first look, or its
 * claim fails because the first holds the name, and aborts. (On a file system without hard links the
 * claim is a rename; the first then sees a record not its own at its next poll and aborts.) A second
 * claim that arrives after the run joined fails alone. Limit: a process whose deadline passes while
 * every {@code ready} but one is there fails, while a peer that saw that last {@code ready} a moment
 * before may have returned; no file protocol without a coordinator closes that window.
 *
 * <p>A failed run without a run token leaves nothing behind (one with a token leaves its abort files:
 * see <em>Stale records</em>): a process that gives up, having removed its files, removes the
 * job directory when it holds nothing but abort files and no record of a peer it read is there when
 * looked up by name (a listing may lag); the abort files are there only to tell processes still
 * waiting, and a process that arrives later ignores them. So the last of the run to give up takes the
 * directory ({@code DirectoryRemoval}: renamed aside first, and a record a new run writes meanwhile goes
 * back with the aborts beside it). Files of a crashed process, an earlier run's, or files that are not
 * the mesh's keep it, for the next run to report or ignore as the first look does.
 *
 * <p>The job directory is the protocol's own: made, renamed aside and removed by it. A job path that is
 * a symbolic link is refused before anything is written (followed, the last one out would rename the
 * link away and empty the directory it names; and another host may resolve it elsewhere), and one that
 * is a file is reported as such. The mesh directory may be a link, or lie under one.
 *
 * <h2>Liveness</h2>
 * A process that died (SIGKILL, a crash, the OOM killer, a host that went down) writes nothing more, so
 * every process proves its life and a few others watch it ({@code Liveness}, one daemon thread per
 * process, from the first write of its record until it leaves or gives up):
 * <ol>
 * <li>Every <em>refresh</em> (a tenth of the liveness timeout, from 10 ms to 1 s; 1 s by default) a
 *     process rewrites {@code alive-<i>} <em>in place</em> with its incarnation and the next value of a
 *     counter. In place rather than renamed: NFS's close-to-open consistency makes a reader that opens
 *     the same file see what its writer wrote before closing it, while a renamed file may be found by a
 *     name an NFS client still resolves to the old one. Only the first beat is renamed into place, and
 *     later ones overwrite text of the same length without truncating, so the file is never empty: a
 *     process killed mid-write leaves a file that still names its incarnation, for its finder to remove.</li>
 * <li>Every refresh it opens and reads the {@code alive} files of the {@link io.uform.mesh.Liveness#WATCHED}
 *     (two) processes after it round the ring of indices whose records it has read, skipping those that
 *     left or died. It judges by content only: a beat whose text changed is life, and the time it stood
 *     still is measured by the reader's monotonic clock ({@code System.nanoTime}). No modification time,
 *     no listing, and no clock of another host is read, so skew between hosts does not matter.</li>
 * <li>A watched process whose beat stood still for more than the liveness timeout (the longer of the
 *     reader's and the writer's, each in its record) is dead, unless a {@code left-<i>} of its incarnation
 *     is there (a clean leave is no death: watching moves on to the next index).</li>
 * <li>Before the run joined, the finder gives up the join for everyone (its {@code abort} file names the
 *     dead process: index, host, pid, and that the run must be restarted), and removes the dead process's
 *     {@code member}, {@code ready} and {@code alive} files (only while they carry its incarnation) and
 *     the temporary files it was writing (named by its incarnation), so the last process to give up
 *     still removes the directory. After the join it writes
 *     {@code dead-<i>} and claims {@code broken.properties}; every process reads that one name every
 *     refresh, so the death reaches all in a refresh whoever found it, and each one's mesh is broken
 *     ({@code FileRendezvous#death}).</li>
 * <li>A process that sees its own beats apart by more than the liveness timeout (it was paused by
 *     SIGSTOP, a long GC pause, swapping, or its writes hung) counts itself <em>expelled</em>: its peers
 *     count it dead, whether or not their word can still be read (they may have left, directory and
 *     all). So does one that reads {@code broken.properties} naming its own incarnation. It beats no more.</li>
 * </ol>
 * Cost on the shared directory, per process and refresh, whatever the count: one write of its
 * {@code alive} file (open, write, close) and three opens and reads ({@code broken.properties},
 * mostly absent, and two {@code alive} files): at the default refresh, about 1 write and 3 reads a
 * second. A death goes unnoticed only where both its watchers die too; a process whose watchers died
 * first is watched by the next live ones once they are found dead.
 * <table>
 * <caption>Invariants of liveness</caption>
 * <tr><th>invariant</th><th>why it holds</th></tr>
 * <tr><td>a live process is never found dead while it beats at least once per timeout</td><td>its beat
 *     changes the content; the reader measures "still" from the last change it read, on its own clock, and
 *     the refresh is a tenth of the timeout</td></tr>
 * <tr><td>a dead process of a joined run is found within timeout + 2 refreshes by each live watcher</td>
 *     <td>watchers read every refresh; the dead one's content no longer changes</td></tr>
 * <tr><td>every live process learns of a death one refresh after it is claimed</td><td>all read
 *     {@code broken.properties} every refresh; the claim is a {@code link(2)}, which never replaces a
 *     file, so its content is the first finder's</td></tr>
 * <tr><td>a process found dead that resumes learns it was expelled and never takes part again</td>
 *     <td>the gap in its own beats exceeds the timeout that its watchers judged by; it stops beating and
 *     its mesh calls fail</td></tr>
 * <tr><td>a clean leave is no death</td><td>{@code left-<i>} is written as the beat stops, and
 *     watchers look for it before they call a still beat a death</td></tr>
 * <tr><td>the last one out removes the directory after a death</td><td>{@code dead-<i>} carries the dead
 *     one's incarnation and stands for its {@code left-<i>} in the last-one-out check and at the next run's
 *     first look</td></tr>
 * </table>
 *
 * <h2>Stale records</h2>
 * A record found at the first look is left by an earlier run, for sure, when:
 * <ul>
 * <li>it comes from this host (same host name, boot id and pid namespace) and its pid is gone, or
 *     names a process that started at another time (pid reused);</li>
 * <li>it comes from a host of the same name whose boot id differs (the host rebooted since, or another
 *     machine or pod has that name, as a re-created Kubernetes Job's pods do);</li>
 * <li>its writer began its bootstrap more than the timeout (the longer of its and this process's)
 *     before this process began: a live peer never waits longer than its timeout. Not when it comes from
 *     this host and its process runs, for sure (pid and start time match): that is a live run.</li>
 * </ul>
 * A stale record is not always an earlier run's: where the launcher gives a <em>run token</em> (Slurm's
 * job, step and restart count, torchrun's run id and restart count, or {@code UFORM_MESH_RUN}; carried in
 * every record and marker) and the stale record carries this process's, it is a peer of this run that
 * died; and where live records of a run still meeting are beside it, it is (most likely) one too. Either
 * way the late process gives up for everyone (an abort file, so the waiting processes fail at once
 * naming it), says the run must be restarted, and never tells anyone to remove the directory, which live
 * processes use. An abort file of this process's own run token found at the first look means its run
 * gave up already: it fails at once with that abort's reason. For that, a run with a token leaves its
 * abort files when it fails (the next run of the job, another token, ignores them and its last one out
 * removes them); a run without one removes its directory as below.
 *
 * <p>{@code left-*} files found at the first look are an earlier run's, and so is a {@code ready-<j>}
 * unless {@code member-<j>} of the same incarnation is there and not stale: that is a run that joined
 * (or is joining) without this process, which then fails alone, having written nothing; never with
 * "remove the directory", which would stop a live run. The age rule compares wall clocks across hosts:
 * with clocks apart by S, a live peer that began more than timeout - S before is reported as stale (the
 * run fails with the fix; it never joins a wrong peer), and a crashed process's record that began less
 * than timeout + S before is not recognised (the wait times out naming its index). Keep clocks in sync
 * (NTP); skew far below the timeout is harmless.
 *
 * <h2>Leave</h2>
 * Leaving stops the beat, writes {@code left-<i>}, removes {@code member-<i>} and {@code alive-<i>}, and
 * the last one out (every index has a {@code left} or a {@code dead} file of its incarnation) renames the
 * directory to {@code .<job>.removed-<incarnation>} beside it and deletes that
 * ({@code DirectoryRemoval}). The rename comes first so that a new run of the job that starts
 * meanwhile writes into a fresh directory.
 *
 * <p><b>Removal never takes a live run's files.</b> The remover decides from a listing that its run
 * finished, then renames; in between (a GC pause, an NFS stall) a new run may have removed the finished
 * run itself, made the directory again and joined. So after the rename the remover reads the grave and
 * deletes only the finished run's files: those of its incarnations, the abort files it listed, and
 * unreadable ones. If a member or ready file of another incarnation is there, the rest goes back into
 * {@code <job>}: the grave renamed back whole when {@code <job>} is absent or empty, otherwise file by
 * file with {@code link(2)}, which never replaces a name, so a file the live run wrote again meanwhile
 * wins. A file leaves the grave only once it is back (or a newer one is), and a second remover that
 * renames the directory away mid-merge restores what it took the same way. Meanwhile the live run's
 * waiting processes write their files again (each poll writes its own back when it is missing); one
 * that has returned depends on the restore for its {@code ready}, which a slow peer still needs.
 * Limits of the window: a file whose writer resolved {@code <job>} before the rename lands in the grave
 * late and is restored only if the grave goes back whole; a process that leaves in the window cannot
 * write its {@code left} (logged; the next run reports its record).
 *
 * <h2>Shared file systems</h2>
 * Nothing relies on inotify or locks: polling is bounded (the lookups between polls add at most 2000 a
 * second for a whole run), indices are claimed by {@code link(2)} (atomic on NFS too), and every file is
 * closed before it is linked or renamed, as NFS's close-to-open consistency needs. NFS clients cache
 * directory listings for {@code acdirmin}..{@code acdirmax} (30-60 s by default), so a new file may
 * show late; mount the directory with {@code lookupcache=positive} or {@code actimeo=1}, or keep the
 * timeout well above that. The lookup that lets the first poll keep a record the first look read may
 * be answered from an NFS client's attribute cache: a record replaced in that moment and missed is
 * as one replaced after it was read, whose writer's {@code ready} names another incarnation, so the
 * join waits for it in vain and times out; it never joins with the record that was replaced.
 *
 * <h2>Dependencies</h2>
 * They run one way: {@code io.uform} uses this package, and this package names no type of
 * {@code io.uform}. A failed join throws what the API's {@link io.uform.failure.FailureFactory} makes
 * (read from {@link io.uform.failure.Failures}): the {@code UformException} the callers of
 * {@link io.uform.Mesh} get, as it is. An abort file carries the failure's kind by name
 * ({@link io.uform.failure.FailureFactory#kindOf}), and the processes that read it fail with the same
 * kind ({@link io.uform.failure.FailureFactory#ofKind}).
 */
package io.uform.mesh;
