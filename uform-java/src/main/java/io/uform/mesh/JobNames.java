package io.uform.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * The rules for a job name: it names the job's directory inside the mesh directory, so it must name
 * exactly one directory there, never a path out of it, and be spelled the same on every host.
 */
final class JobNames {

	private JobNames() {
	}

	/**
	 * Checks a job name: it must name one directory inside the mesh directory, never a path out of it,
	 * and one that every host spells the same way.
	 * @param job the name
	 * @param directory the mesh directory it names a directory in, or {@code null} where there is none
	 *        (a run with no peers: the name is still checked against this host's default file system,
	 *        so that a bad name shows before the run grows)
	 * @return why it cannot be used, or {@code null} when it can
	 */
	static String problem(String job, Path directory) {
		if (job.isEmpty()) {
			return "is empty";
		}
		if (job.equals(".") || job.equals("..")) {
			return "names the directory itself or its parent";
		}
		if (job.indexOf('/') >= 0 || job.indexOf('\\') >= 0) {
			return "contains a path separator ('/' or '\\')";
		}
		int placeholder = job.indexOf("${");
		if (placeholder >= 0) {
			// Spring's binder leaves a placeholder whose variable is unset as it is written, and so do
			// shells in single quotes: every run would then share the job name "${JOB_NAME}", and the
			// next run would meet the last one's records.
			int end = job.indexOf('}', placeholder);
			String variable = (end > placeholder) ? job.substring(placeholder, end + 1) : job.substring(placeholder);
			return "holds " + variable + ", a placeholder whose variable was not set; set it (on Kubernetes, from the "
					+ "Job's name), or give the job name itself";
		}
		// By code point: format characters past the basic plane (the invisible tag characters U+E0001 and
		// U+E0020 to U+E007F) are two chars, neither of which is a format character by itself.
		for (int i = 0; i < job.length(); i += Character.charCount(job.codePointAt(i))) {
			int c = job.codePointAt(i);
			if (Character.isISOControl(c)) {
				return "contains control character U+" + String.format("%04X", c);
			}
			if (Character.getType(c) == Character.FORMAT) {
				// Invisible, or worse: U+202E shows the rest of the name reversed, in a listing and in every
				// message that names the job, so two runs' names could look alike and differ.
				return "contains invisible format character U+" + String.format("%04X", c)
						+ " (such as a direction override or a zero-width space)";
			}
		}
		char last = job.charAt(job.length() - 1);
		if (last == '.' || last == ' ') {
			// SMB shares (Azure Files among them) drop a trailing dot or space from a name, so 'run.' and
			// 'run' would be one directory there and two on a local disk or NFS: two runs would meet.
			return "ends in '" + last + "', which SMB and Azure Files shares drop from a name (so 'run" + last
					+ "' and 'run' would name one directory there): end it with a letter or digit";
		}
		int bytes = job.getBytes(StandardCharsets.UTF_8).length;
		if (bytes > 200) {
			return "is " + bytes + " bytes of UTF-8, more than 200 (file names hold at most 255)";
		}
		// Last, the file system itself: a name it cannot hold (an unpaired surrogate, or a character the
		// JVM's file name encoding cannot write, such as any non-ASCII one in a JVM started in the C
		// locale) fails here, not later as a raw InvalidPathException, and a name it would read as
		// something else than one file inside the directory is refused.
		// An empty path (the working directory) has no parent to compare with: "." stands for it.
		Path base = (directory == null) ? Path.of(".")
				: directory.toString().isEmpty() ? directory.getFileSystem().getPath(".") : directory;
		Path resolved;
		try {
			resolved = base.resolve(job);
		}
		catch (InvalidPathException ex) {
			return "is not a file name on this host (" + ex.getReason() + "; this JVM writes file names in "
					+ System.getProperty("sun.jnu.encoding", "its platform encoding") + ", which sun.jnu.encoding "
					+ "shows and the locale, LANG or LC_ALL, sets)";
		}
		Path name = resolved.getFileName();
		if (!base.equals(resolved.getParent()) || name == null || !name.toString().equals(job)) {
			return "does not name one file inside the directory on this host (it resolves to " + resolved + ")";
		}
		return null;
	}
}
