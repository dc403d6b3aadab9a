package io.uform.mesh;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FileNames} reads a job directory's file names exactly as the regular expressions it replaced
 * did: the same names accepted, the same index or incarnation read.
 */
class FileNamesTest {

	private static final List<String> KINDS = List.of(FileNames.MEMBER, FileNames.READY, FileNames.LEFT);

	/** The patterns the job directory's names were read with before {@link FileNames}. */
	private static final Map<String, Pattern> INDEXED = Map.of(FileNames.MEMBER,
			Pattern.compile("member-(\\d{1,10})\\.properties"), FileNames.READY,
			Pattern.compile("ready-(\\d{1,10})\\.properties"), FileNames.LEFT,
			Pattern.compile("left-(\\d{1,10})\\.properties"));

	private static final Pattern ABORT = Pattern.compile("abort-([0-9a-f-]{1,64})\\.properties");

	/** Characters the generated names are made of: every class the patterns tell apart, and some near them. */
	private static final String ALPHABET = "0123456789abcdefgxyzABCF-._/:` \u0663\uff11";

	@Test
	void readsTheNamesAJobDirectoryHolds() {
		assertThat(FileNames.index("member-3.properties", FileNames.MEMBER)).isEqualTo(3);
		assertThat(FileNames.index("ready-0.properties", FileNames.READY)).isZero();
		assertThat(FileNames.digits("left-007.properties", FileNames.LEFT)).isEqualTo("007");
		assertThat(FileNames.index("member-4294967296.properties", FileNames.MEMBER)).isEqualTo(Integer.MAX_VALUE);
		assertThat(FileNames.abortIncarnation("abort-0f1e-2d.properties")).isEqualTo("0f1e-2d");
		assertThat(FileNames.index("ready-3.properties", FileNames.MEMBER)).isEqualTo(-1);
		assertThat(FileNames.index("member-.properties", FileNames.MEMBER)).isEqualTo(-1);
		assertThat(FileNames.index("member-12345678901.properties", FileNames.MEMBER)).isEqualTo(-1);
		assertThat(FileNames.index(".tmp-abc-member-1.properties", FileNames.MEMBER)).isEqualTo(-1);
		assertThat(FileNames.abortIncarnation("abort-0F.properties")).isNull();
	}

	@Test
	void readsBackTheNamesItWrites() {
		for (int index : new int[] { 0, 7, 1234, Integer.MAX_VALUE }) {
			for (String kind : KINDS) {
				assertThat(FileNames.index(FileNames.name(kind, index), kind)).as(kind + index).isEqualTo(index);
				check(FileNames.name(kind, index));
			}
		}
		String incarnation = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
		assertThat(FileNames.name(FileNames.ABORT, incarnation)).isEqualTo("abort-" + incarnation + ".properties");
		assertThat(FileNames.abortIncarnation(FileNames.name(FileNames.ABORT, incarnation))).isEqualTo(incarnation);
	}

	@Test
	void acceptsWhatThePatternsMatchAndNothingElse() {
		Random random = new Random(7);
		String[] prefixes = { "member-", "ready-", "left-", "abort-", "member", "abort", "", "x-", "member--" };
		String[] suffixes = { ".properties", ".propertie", "properties", ".properties.tmp", "", ".Properties" };
		int accepted = 0;
		for (int i = 0; i < 200_000; i++) {
			String middle = randomText(random, random.nextInt(3) == 0 ? 60 + random.nextInt(10) : random.nextInt(13));
			String name = prefixes[random.nextInt(prefixes.length)] + middle
					+ ((random.nextInt(4) == 0) ? suffixes[random.nextInt(suffixes.length)] : ".properties");
			accepted += check(name);
		}
		// The generator must reach the accepting side of every pattern often, not only the rejecting one.
		assertThat(accepted).isGreaterThan(10_000);
	}

	@Test
	void agreesAtTheLengthLimits() {
		for (int digits = 0; digits <= 12; digits++) {
			check("member-" + "9".repeat(digits) + ".properties");
			check("ready-" + "1".repeat(digits) + ".properties");
		}
		for (int length = 0; length <= 66; length++) {
			check("abort-" + "a-".repeat(length).substring(0, length) + ".properties");
		}
	}

	/** Checks one name against every pattern; returns how many accepted it. */
	private static int check(String name) {
		int accepted = 0;
		for (String kind : KINDS) {
			Matcher matcher = INDEXED.get(kind).matcher(name);
			boolean matches = matcher.matches();
			assertThat(FileNames.is(name, kind)).as(kind + " " + name).isEqualTo(matches);
			assertThat(FileNames.digits(name, kind)).as(kind + " " + name).isEqualTo(matches ? matcher.group(1) : null);
			int expected = -1;
			if (matches) {
				accepted++;
				long value = Long.parseLong(matcher.group(1));
				expected = (value > Integer.MAX_VALUE) ? Integer.MAX_VALUE : (int) value;
			}
			assertThat(FileNames.index(name, kind)).as(kind + " " + name).isEqualTo(expected);
		}
		Matcher abort = ABORT.matcher(name);
		boolean matches = abort.matches();
		assertThat(FileNames.abortIncarnation(name)).as(name).isEqualTo(matches ? abort.group(1) : null);
		return accepted + (matches ? 1 : 0);
	}

	private static String randomText(Random random, int length) {
		StringBuilder text = new StringBuilder(length);
		// Half the names are digits only, or hexadecimal and '-' only, so that the patterns match often.
		String alphabet = switch (random.nextInt(4)) {
			case 0 -> "0123456789";
			case 1 -> "0123456789abcdef-";
			default -> ALPHABET;
		};
		for (int i = 0; i < length; i++) {
			text.append(alphabet.charAt(random.nextInt(alphabet.length())));
		}
		return text.toString();
	}
}
