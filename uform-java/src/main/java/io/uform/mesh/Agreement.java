package io.uform.mesh;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.uform.failure.Failures;

/**
 * What the processes of a run must agree on, as one process judges the others' records against its
 * own: the protocol, the count, {@code gpusPerMultimemDomain}, and one process per index.
 */
final class Agreement {

	private final MemberRecord self;

	private final Path jobDirectory;

	/**
	 * @param self this process's record
	 * @param jobDirectory the job's directory, which the fixes in messages name
	 */
	Agreement(MemberRecord self, Path jobDirectory) {
		this.self = self;
		this.jobDirectory = jobDirectory;
	}

	private String job() {
		return this.self.job();
	}

	/**
	 * Gives up when a record's protocol, as its file spells it (as text: the parsed number would let
	 * {@code 01} pass), is not this version's. Called before the record is parsed: a record of another
	 * version may not parse as this one's.
	 * @param name the record's file
	 * @param protocol the protocol its file names, or {@code null} where it names none
	 * @param firstLook whether the record was there before this process wrote anything: then it gives
	 *        up alone (it has nothing to remove, and its abort would be a file in another version's
	 *        live run), and the record may also be an earlier run's
	 */
	void requireProtocol(String name, String protocol, boolean firstLook) throws Failure {
		if (protocol != null && !protocol.trim().equals(Integer.toString(FileRendezvous.PROTOCOL))) {
			String leftover = (firstLook) ? " (if " + name + " was left by an earlier run of another version, remove "
					+ this.jobDirectory + " once no process of that run is running, or use a new job name)" : "";
			throw new Failure(Failures.factory().invalidArgument("Mesh job '" + job() + "': processes "
					+ "disagree on the mesh protocol: " + name + " speaks protocol " + protocol.trim() + ", "
					+ this.self.who() + " speaks " + FileRendezvous.PROTOCOL + "; run one uform version on every host"
					+ leftover), !firstLook);
		}
	}

	/** Gives up, for every process, when another process's record disagrees with this one's. */
	void check(MemberRecord other) throws Failure {
		String differences = differences(other);
		if (differences != null) {
			throw new Failure(Failures.factory().invalidArgument("Mesh job '" + job() + "': processes "
					+ "disagree on " + differences + ". Start every process of the run with "
					+ "the same hostDomainCount and gpusPerMultimemDomain (set gpusPerMultimemDomain where hosts have "
					+ "different GPU counts)"), true);
		}
	}

	/** What another process's record disagrees with this one's on, or {@code null}. */
	String differences(MemberRecord other) {
		List<String> differences = new ArrayList<>();
		MemberRecord me = this.self;
		if (other.count() != me.count()) {
			differences.add("hostDomainCount: " + other.who() + " has " + other.count() + ", " + me.who() + " has "
					+ me.count());
		}
		if (other.gpusPerMultimemDomain() != me.gpusPerMultimemDomain()) {
			differences.add("gpusPerMultimemDomain: " + other.who() + " has " + gpus(other) + ", " + me.who()
					+ " has " + gpus(me));
		}
		return (differences.isEmpty()) ? null : String.join("; and on ", differences);
	}

	private static String gpus(MemberRecord record) {
		return record.gpusPerMultimemDomain() + (record.gpusDerived() ? " (derived from its "
				+ record.devices().size() + " GPU(s))" : "");
	}

	/**
	 * Two claims of one index; {@code first} was there first.
	 * @param both whether both give up (a run still meeting), or only the second (a run that joined)
	 */
	RuntimeException duplicate(MemberRecord first, MemberRecord second, boolean both) {
		String sameHost = "";
		if (first.host().equals(second.host()) && !first.hostKey().equals(second.hostKey())) {
			sameHost = " (both on host " + first.host() + ": if pid " + first.pid() + " was an earlier incarnation of "
					+ "this process, such as a restarted container, its record is left by a crash: remove "
					+ this.jobDirectory + " or use a new job name)";
		}
		return Failures.factory().invalidArgument("Mesh job '" + job() + "': index " + first.index()
				+ " is claimed by two processes, host " + first.host() + " pid " + first.pid() + " (bootstrap began "
				+ first.bootstrapStarted() + ") and host " + second.host() + " pid " + second.pid() + " (began "
				+ second.bootstrapStarted() + "). Give each process its own "
				+ "hostDomainIndex in [0, " + this.self.count() + ") (in Kubernetes, from JOB_COMPLETION_INDEX)"
				+ sameHost + ((both) ? ". Both give up" : ". The later one gives up; the run that joined goes on"));
	}
}
