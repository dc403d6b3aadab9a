package io.uform.spring.autoconfigure;

import java.lang.reflect.RecordComponent;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.DataObjectPropertyName;

/**
 * Rewrites uform's advice, written for its Java API, in the terms of the {@code uform.*} properties a
 * Spring user sets: a config's field ({@code hostDomainCount}) becomes its property
 * ({@code uform.mesh.host-domain-count}), {@code Duration.ofSeconds(120)} becomes {@code 120s}, an
 * absent field an unset property, and a named default constant its value. Used by
 * {@link UformFailureAnalyzer} where a property's value failed, so that the action it prints can be
 * followed in {@code application.yml} as written.
 */
final class PropertyTerms {

	/** {@code Duration.ofSeconds(120)}, {@code Duration.ofMillis(500)}, as an example value. */
	private static final Pattern DURATION = Pattern.compile("Duration\\.of(Seconds|Millis|Minutes)\\((\\d+)\\)");

	/** {@code absent for MeshOptions.DEFAULT_TIMEOUT (120 s)}: the value in brackets is what counts. */
	private static final Pattern DEFAULT_CONSTANT = Pattern.compile("absent for [A-Z]\\w*\\.DEFAULT_\\w+ \\(");

	/** {@code leave gpuClass absent}, {@code or absent}, {@code is absent}: a property is unset. */
	private static final Pattern ABSENT = Pattern.compile("\\b(or|is|it|leave \\S+) absent\\b");

	/**
	 * What the advice quotes of the user's own values: text in single quotes ({@code mesh job 'run-1'})
	 * and paths ({@code /shared/uform/run-1}, an exception's text after them). Left as it is, so that a
	 * job or directory named like a field is not rewritten.
	 */
	private static final Pattern QUOTED = Pattern.compile("'[^']*'|\\S*/\\S*");

	private PropertyTerms() {
	}

	/**
	 * The advice in property terms.
	 * @param fix uform's advice ({@code UformException.fix()}); {@code null} gives an empty advice
	 * @param prefix the properties' prefix, like {@code uform.mesh}
	 * @param config the config record whose fields the properties bind, like {@code MeshOptions}
	 * @return the advice to print
	 */
	static String of(@Nullable String fix, String prefix, Class<?> config) {
		if (fix == null) {
			return "";
		}
		StringBuilder out = new StringBuilder();
		Matcher quoted = QUOTED.matcher(fix);
		int from = 0;
		while (quoted.find()) {
			out.append(rewrite(fix.substring(from, quoted.start()), prefix, config)).append(quoted.group());
			from = quoted.end();
		}
		return out.append(rewrite(fix.substring(from), prefix, config)).toString();
	}

	/** Rewrites one stretch of uform's own words, none of the user's values in it. */
	private static String rewrite(String words, String prefix, Class<?> config) {
		StringBuilder out = new StringBuilder();
		Matcher duration = DURATION.matcher(words);
		while (duration.find()) {
			String unit = switch (duration.group(1)) {
				case "Millis" -> "ms";
				case "Minutes" -> "m";
				default -> "s";
			};
			duration.appendReplacement(out, Matcher.quoteReplacement(duration.group(2) + unit));
		}
		duration.appendTail(out);
		String text = DEFAULT_CONSTANT.matcher(out).replaceAll("unset for the default (");
		text = ABSENT.matcher(text).replaceAll("$1 unset");
		RecordComponent[] fields = config.getRecordComponents();
		if (fields != null) {
			for (RecordComponent field : fields) {
				String name = field.getName();
				// Only names of two words or more: one-word names (directory, job, threads) are also plain
				// English in the advice ("meets in a directory every host sees").
				if (!name.equals(name.toLowerCase(Locale.ROOT))) {
					text = text.replaceAll("\\b" + name + "\\b",
							Matcher.quoteReplacement(prefix + "." + DataObjectPropertyName.toDashedForm(name)));
				}
			}
		}
		return text;
	}
}
