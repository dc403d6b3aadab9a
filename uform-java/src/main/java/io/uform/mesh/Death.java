package io.uform.mesh;

import java.util.Properties;

/**
 * A member of a mesh found dead: which one, who found it, and why. Written as {@code dead-<i>} and
 * claimed as {@code broken.properties} by the member that found it once the run joined (see the
 * package's description, <em>Liveness</em>); read back by every other member.
 * @param index the dead member's index
 * @param incarnation the dead member's incarnation
 * @param host the dead member's host
 * @param pid the dead member's pid
 * @param by who found it, as messages name a process
 * @param reason why it counts as dead: its process is gone, or its heartbeat stood still too long
 * @param expelled whether it names the process that reads it: that process was declared dead (it was
 *        paused, say, past the liveness timeout) and is no longer a member
 */
public record Death(int index, String incarnation, String host, long pid, String by, String reason, boolean expelled) {

	/**
	 * The dead member, as messages name a process.
	 * @return like {@code index 2 (host node-c, pid 4242)}
	 */
	public String who() {
		return "index " + this.index + " (host " + this.host + ", pid " + this.pid + ")";
	}

	/** The death of a member whose record is {@code dead}, found by {@code by}. */
	static Death of(MemberRecord dead, MemberRecord by, String reason) {
		return new Death(dead.index(), dead.incarnation(), dead.host(), dead.pid(), by.who(), reason, false);
	}

	/** The same death as read by {@code reader}: expelled when it names the reader itself. */
	Death readBy(MemberRecord reader) {
		boolean self = this.index == reader.index() && this.incarnation.equals(reader.incarnation());
		return new Death(this.index, this.incarnation, this.host, this.pid, this.by, this.reason, self);
	}

	/**
	 * The file's bytes. {@code marker.incarnation} is the dead member's, so that the files that look for
	 * an owner ({@code JobFiles.owner}) count it as that member's: its {@code dead} file stands for the
	 * {@code left} file it never wrote.
	 */
	byte[] toBytes() {
		Properties properties = new Properties();
		properties.setProperty("uform.mesh.protocol", Integer.toString(FileRendezvous.PROTOCOL));
		properties.setProperty("marker.kind", "dead");
		properties.setProperty("marker.incarnation", this.incarnation);
		properties.setProperty("dead.index", Integer.toString(this.index));
		properties.setProperty("dead.host", this.host);
		properties.setProperty("dead.pid", Long.toString(this.pid));
		properties.setProperty("dead.by", this.by);
		properties.setProperty("dead.reason", this.reason);
		return MemberRecord.store(properties, "uform mesh death (see io.uform.mesh.Liveness)");
	}

	/**
	 * Reads a death from a file's bytes.
	 * @throws IllegalArgumentException naming the key that is missing or malformed
	 */
	static Death parse(byte[] bytes) {
		Properties properties = MemberRecord.load(bytes);
		return new Death(MemberRecord.integer(properties, "dead.index"), MemberRecord.text(properties, "marker.incarnation"),
				MemberRecord.text(properties, "dead.host"), MemberRecord.number(properties, "dead.pid"),
				MemberRecord.text(properties, "dead.by"), MemberRecord.text(properties, "dead.reason"), false);
	}
}
