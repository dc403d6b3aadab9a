package io.uform.sample.web;

import java.io.IOException;
import java.io.PrintWriter;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

/**
 * Tomcat's error report as an RFC 9457 problem instead of its HTML page (OpenAI's error under
 * {@code /v1}, {@link OpenAiRouteErrors}). It answers what Tomcat refuses before any servlet sees the
 * request: a request line or header over the connector's limits, an encoded {@code ..}
 * ({@code %2e%2e}), raw bytes that are not a URI's, and what an application's servlet left as a bare
 * status. No stack trace and no server version reach the client.
 */
public final class ProblemErrorReportValve extends ErrorReportValve {

	@Override
	protected void report(Request request, Response response, Throwable throwable) {
		int code = response.getStatus();
		// As Tomcat's own: only an error that nothing has answered yet.
		if (code < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
			return;
		}
		HttpStatus status = HttpStatus.resolve(code);
		if (status == null) {
			return;
		}
		try {
			// The URI Tomcat read, where it read one: a request line it could not parse has none.
			boolean openAi = OpenAiRouteErrors.applies(request.getContextPath(), request.getRequestURI());
			response.setContentType(openAi ? MediaType.APPLICATION_JSON_VALUE : MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			response.setCharacterEncoding("UTF-8");
			PrintWriter writer = response.getReporter();
			if (writer != null) {
				String detail = detail(status, response.getMessage());
				writer.write(openAi ? OpenAiRouteErrors.json(status, request.getMethod(), request.getRequestURI(), detail)
						: ProblemResponses.body(status, detail));
				response.finishResponse();
			}
		}
		catch (IOException | IllegalStateException ex) {
			// The client is gone, or the response was committed meanwhile: nothing more to tell it.
		}
	}

	/**
	 * What to tell the client: Tomcat's reason where it gave one, and what to change.
	 * @param status the status Tomcat chose
	 * @param message Tomcat's message, often absent for a refusal in the connector
	 * @return the detail
	 */
	static String detail(HttpStatus status, String message) {
		String why = (message != null && !message.isBlank()) ? message + ": " : "";
		return switch (status) {
			case BAD_REQUEST -> "the request could not be parsed: " + why + "check the request line and headers "
					+ "(the path must be a valid URI: no raw bytes outside ASCII, no encoded '.' or '/' segments, "
					+ "each %-escape two hex digits)";
			case URI_TOO_LONG -> "the request line is longer than the server reads (server.max-http-request-header-size): "
					+ why + "send a long query as the body of a POST";
			case REQUEST_HEADER_FIELDS_TOO_LARGE -> "the headers are longer than the server reads "
					+ "(server.max-http-request-header-size): " + why + "send fewer or shorter headers";
			default -> (message != null && !message.isBlank()) ? message : status.getReasonPhrase();
		};
	}
}
