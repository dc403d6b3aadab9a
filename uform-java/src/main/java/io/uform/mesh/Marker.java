package io.uform.mesh;

import java.time.Instant;
import java.util.Properties;

/**
 * A {@code ready}, {@code left} or {@code abort} file: who wrote it and, for an abort, why.
 * @param index its writer's index
 * @param incarnation its writer's incarnation
 * @param host its writer's host
 * @param pid its writer's pid
 * @param written when it was written
 * @param count its writer's count
 * @param status an abort's status, else {@code null}
 * @param reason an abort's message, else {@code null}
 */
record Marker(int index, String incarnation, String host, long pid, Instant written, int count, String status,
		String reason) {

	/**
	 * Who wrote the marker, as messages name a process.
	 * @return like {@code index 2 (host node-c, pid 4242)}
	 */
	String who() {
		return "index " + this.index + " (host " + this.host + ", pid " + this.pid + ")";
	}

	/**
	 * A marker's file, written now.
	 * @param kind {@code ready}, {@code left} or {@code abort}
	 * @param writer the writer's record
	 * @param status an abort's kind of failure ({@link io.uform.failure.FailureFactory#kindOf}), else {@code null}
	 * @param reason an abort's message, else {@code null}
	 * @return the file's bytes
	 */
	static byte[] toBytes(String kind, MemberRecord writer, String status, String reason) {
		Properties properties = new Properties();
		properties.setProperty("uform.mesh.protocol", Integer.toString(FileRendezvous.PROTOCOL));
		properties.setProperty("marker.kind", kind);
		properties.setProperty("marker.index", Integer.toString(writer.index()));
		properties.setProperty("marker.count", Integer.toString(writer.count()));
		properties.setProperty("marker.incarnation", writer.incarnation());
		properties.setProperty("marker.host", writer.host());
		properties.setProperty("marker.pid", Long.toString(writer.pid()));
		properties.setProperty("marker.written", MemberRecord.epochNanos(Instant.now()));
		if (status != null) {
			properties.setProperty("marker.status", status);
			properties.setProperty("marker.reason", reason);
		}
		return MemberRecord.store(properties, "uform mesh " + kind + " marker (see io.uform.mesh.FileRendezvous)");
	}

	/**
	 * Reads a marker from a file's bytes.
	 * @param bytes what the file holds
	 * @return the marker
	 * @throws IllegalArgumentException naming the key that is missing or malformed
	 */
	static Marker parse(byte[] bytes) {
		Properties properties = MemberRecord.load(bytes);
		return new Marker(MemberRecord.integer(properties, "marker.index"),
				MemberRecord.text(properties, "marker.incarnation"), MemberRecord.text(properties, "marker.host"),
				MemberRecord.number(properties, "marker.pid"),
				MemberRecord.instant(properties, "marker.written"), MemberRecord.integer(properties, "marker.count"),
				properties.getProperty("marker.status"), properties.getProperty("marker.reason"));
	}
}
