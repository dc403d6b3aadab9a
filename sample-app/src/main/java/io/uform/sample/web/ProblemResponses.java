package io.uform.sample.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

/**
 * Writes an RFC 9457 problem where Spring MVC's exception handlers cannot: in a filter, before the
 * request reaches a controller, or in Tomcat's error report, after the connector refused it. Under
 * {@code /v1} the body is OpenAI's error instead ({@link OpenAiRouteErrors}).
 */
public final class ProblemResponses {

	private static final JsonMapper json = JsonMapper.builder().build();

	private ProblemResponses() {
	}

	/**
	 * The problem's JSON, as Spring's {@code ProblemDetail} writes it.
	 * @param status the status
	 * @param detail what was wrong and how to fix it
	 * @return the body
	 */
	public static String body(HttpStatus status, String detail) {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", "about:blank");
		problem.put("title", status.getReasonPhrase());
		problem.put("status", status.value());
		problem.put("detail", detail);
		return json.writeValueAsString(problem);
	}

	/**
	 * Answers with a problem (OpenAI's error under {@code /v1}), replacing whatever the response held.
	 * @param request the request, whose path says which body
	 * @param response the response, not committed
	 * @param status the status
	 * @param detail what was wrong and how to fix it
	 * @throws IOException when the client is gone
	 */
	public static void write(HttpServletRequest request, HttpServletResponse response, HttpStatus status,
			String detail) throws IOException {
		boolean openAi = OpenAiRouteErrors.applies(request);
		response.resetBuffer();
		response.setStatus(status.value());
		response.setContentType(openAi ? MediaType.APPLICATION_JSON_VALUE : MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		byte[] body = (openAi ? OpenAiRouteErrors.json(status, request.getMethod(), request.getRequestURI(), detail)
				: body(status, detail)).getBytes(StandardCharsets.UTF_8);
		// Replaces a length the handler may have declared for the body it did not write.
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}
}
