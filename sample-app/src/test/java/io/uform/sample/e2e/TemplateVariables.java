package io.uform.sample.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.uform.sample.e2e.GrafanaDashboard.Variable;

/**
 * A dashboard's template variables with their values, written into PromQL the way Grafana's
 * Prometheus data source writes them: a variable that takes several values or "All" becomes the
 * regex alternation of its values, each regex-escaped ({@code (uformRamExecutor|uformVramExecutor)},
 * or the one escaped value alone), which {@code =~} matches; a single-valued one becomes its first
 * value as it is, which {@code =} matches. Grafana's own interval and range variables get fixed
 * values that fit a test of a few seconds scraped every second.
 */
final class TemplateVariables {

	/**
	 * Grafana's built-ins. {@code $__rate_interval} is at least four scrape intervals in Grafana; 10 s
	 * holds about ten samples of a 1 s scrape, so a {@code rate()} over it has points to work with.
	 */
	static final Map<String, String> BUILT_INS = Map.of("__rate_interval", "10s", "__interval", "2s", "__interval_ms",
			"2000", "__range", "1m", "__range_s", "60", "__range_ms", "60000");

	/**
	 * {@code ${name}}, {@code ${name:format}}, {@code $name} and the old {@code [[name]]}. A name starts
	 * with a letter or {@code _}: {@code "$1"} in {@code label_replace} is a capture group, not a variable.
	 */
	private static final Pattern REFERENCE = Pattern.compile(
			"\\$\\{([A-Za-z_]\\w*)(?::\\w+)?}|\\$([A-Za-z_]\\w*)|\\[\\[([A-Za-z_]\\w*)(?::\\w+)?]]");

	/**
	 * {@code label_values(selector, label)} or {@code label_values(label)}. Greedy up to the last
	 * comma: a selector may hold commas of its own ({@code up{job="a", instance=~"b"}}).
	 */
	private static final Pattern LABEL_VALUES = Pattern
		.compile("\\s*label_values\\(\\s*(?:(.*)\\s*,\\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)\\s*", Pattern.DOTALL);

	/** Characters Grafana escapes in a multi-valued variable's values (its prometheusSpecialRegexEscape). */
	private static final Pattern REGEX_SPECIAL = Pattern.compile("[$^*{}\\[\\]'+?.()|]");

	private final Map<String, String> written = new HashMap<>();

	/**
	 * A {@code label_values} variable query, taken apart.
	 *
	 * @param selector the series selector, variables still in it
	 * @param label the label whose values the variable lists
	 */
	record LabelValuesQuery(String selector, String label) {
	}

	/**
	 * Parses a query variable's query.
	 * @param query such as {@code label_values(up{job="x"}, instance)}
	 * @return the selector and label; a selector-less {@code label_values(label)} gets every series;
	 *         empty for any other kind of query ({@code query_result}, {@code metrics}, ...)
	 */
	static Optional<LabelValuesQuery> labelValues(String query) {
		Matcher matcher = LABEL_VALUES.matcher(query);
		if (!matcher.matches()) {
			return Optional.empty();
		}
		String selector = (matcher.group(1) != null) ? matcher.group(1).trim() : "{__name__=~\".+\"}";
		return Optional.of(new LabelValuesQuery(selector, matcher.group(2)));
	}

	/**
	 * Applies a variable's {@code regex} as Grafana does: values that do not match are dropped, and a
	 * capture group (named {@code value}, else the first) replaces the value.
	 * @param values the values found
	 * @param regex {@code /pattern/flags}, or empty for none
	 * @return the values kept
	 * @throws PatternSyntaxException when the regex is not one Java reads
	 */
	static List<String> filter(List<String> values, String regex) {
		if (regex.isBlank()) {
			return values;
		}
		String pattern = regex;
		int flags = 0;
		if (regex.startsWith("/") && regex.lastIndexOf('/') > 0) {
			pattern = regex.substring(1, regex.lastIndexOf('/'));
			flags = regex.substring(regex.lastIndexOf('/') + 1).contains("i") ? Pattern.CASE_INSENSITIVE : 0;
		}
		Pattern compiled = Pattern.compile(pattern, flags);
		List<String> kept = new ArrayList<>();
		for (String value : values) {
			Matcher matcher = compiled.matcher(value);
			if (matcher.find()) {
				kept.add(group(matcher, pattern).orElse(value));
			}
		}
		return kept.stream().distinct().toList();
	}

	private static Optional<String> group(Matcher matcher, String pattern) {
		if (pattern.contains("(?<value>")) {
			return Optional.ofNullable(matcher.group("value"));
		}
		return (matcher.groupCount() > 0) ? Optional.ofNullable(matcher.group(1)) : Optional.empty();
	}

	/**
	 * Gives a variable its values, all of them selected where it allows several or "All".
	 * @param variable the variable
	 * @param values its values, at least one
	 */
	void define(Variable variable, List<String> values) {
		String text;
		if (variable.multi() || variable.includeAll()) {
			if (variable.includeAll() && !variable.allValue().isEmpty()) {
				text = variable.allValue();
			}
			else {
				List<String> escaped = values.stream().map(TemplateVariables::regexEscape).toList();
				text = (escaped.size() == 1) ? escaped.get(0) : "(" + String.join("|", escaped) + ")";
			}
		}
		else {
			// Grafana's prometheusRegularEscape: the value goes into a quoted PromQL string as it is.
			text = values.get(0).replace("\\", "\\\\").replace("'", "\\\\'");
		}
		this.written.put(variable.name(), text);
	}

	/**
	 * A value escaped for a regex inside a PromQL string: the backslash itself is doubled for the
	 * string, so {@code 127.0.0.1:8080} becomes {@code 127\\.0\\.0\\.1:8080} in the query text.
	 */
	static String regexEscape(String value) {
		String backslashes = value.replace("\\", "\\\\\\\\");
		return REGEX_SPECIAL.matcher(backslashes)
			.replaceAll((match) -> Matcher.quoteReplacement("\\\\" + match.group()));
	}

	/**
	 * Writes the variables defined so far, and the built-ins, into a text.
	 * @param text PromQL with variable references
	 * @return the text with every known reference replaced; unknown ones stay as written
	 */
	String substitute(String text) {
		return REFERENCE.matcher(text).replaceAll((match) -> {
			String value = value(name(match));
			return Matcher.quoteReplacement((value != null) ? value : match.group());
		});
	}

	/**
	 * The references a text still holds after {@link #substitute(String)}: variables the dashboard
	 * does not define, or defines after the one that uses them.
	 * @param text substituted PromQL
	 * @return the names, as written
	 */
	List<String> unresolved(String text) {
		return REFERENCE.matcher(text)
			.results()
			.filter((match) -> value(name(match)) == null)
			.map(MatchResult::group)
			.distinct()
			.toList();
	}

	private String value(String name) {
		return BUILT_INS.containsKey(name) ? BUILT_INS.get(name) : this.written.get(name);
	}

	private static String name(MatchResult match) {
		for (int group = 1; group <= match.groupCount(); group++) {
			if (match.group(group) != null) {
				return match.group(group);
			}
		}
		throw new IllegalStateException("no name in " + match.group());
	}
}
