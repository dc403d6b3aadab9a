package io.uform.sample.web;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a query string the application cannot read before anything reads it: a malformed
 * %-escape ({@code ?q=a%zzb}) or bytes that are not UTF-8 ({@code %ff%fe}) make Tomcat throw from
 * the first {@code getParameter}, deep in Spring MVC, which logged an ERROR with its stack trace and
 * answered with Boot's fallback error page. On the sample's own routes a parameter given twice
 * ({@code k=5&k=6}, of which Spring would take the first) or empty ({@code k=}, which Spring reads as
 * absent) is refused too; the actuator's routes keep their own rules (Prometheus' scrape repeats
 * {@code includedNames}).
 */
public final class QueryStringCheck extends OncePerRequestFilter {

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		Map<String, String[]> parameters;
		try {
			parameters = request.getParameterMap();
		}
		catch (IllegalStateException ex) {
			// Tomcat's InvalidParameterException: the escape or charset error, in Tomcat's words.
			ProblemResponses.write(request, response, HttpStatus.BAD_REQUEST, "the query string cannot be decoded ("
					+ ex.getMessage() + "): escape each byte as % and two hex digits (a '%' itself as %25), and "
					+ "encode text as UTF-8, e.g. ?q=how+many+threads%3F");
			return;
		}
		if (!request.getRequestURI().startsWith(request.getContextPath() + "/actuator")) {
			for (Map.Entry<String, String[]> parameter : parameters.entrySet()) {
				String name = parameter.getKey();
				String[] values = parameter.getValue();
				if (values.length > 1) {
					ProblemResponses.write(request, response, HttpStatus.BAD_REQUEST, name + " is given " + values.length
							+ " times " + Arrays.toString(values) + ": give it once");
					return;
				}
				if (values.length == 1 && values[0].isEmpty()) {
					ProblemResponses.write(request, response, HttpStatus.BAD_REQUEST,
							name + " is empty: give it a value, or leave it out for its default");
					return;
				}
			}
		}
		chain.doFilter(request, response);
	}
}
