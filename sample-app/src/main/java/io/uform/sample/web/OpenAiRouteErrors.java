package io.uform.sample.web;

import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The one place that says how an error under {@code /v1} (the OpenAI-compatible route) is answered:
 * OpenAI's body, {@code {"error": {"message", "type", "param", "code"}}}, as {@code application/json},
 * which OpenAI's SDKs and Spring AI's and langchain4j's clients read; every other route keeps RFC 9457.
 * Whatever writes an error asks {@link #applies} first: the route's own advice, Spring MVC's exceptions
 * (an unknown {@code /v1} route, a wrong method or media type, handled here for every route, as Boot's
 * {@code ProblemDetailsExceptionHandler} would, which backs off for this one), the servlet filters
 * ({@link ProblemResponses#write}) and Tomcat's error report ({@link ProblemErrorReportValve}).
 */
@RestControllerAdvice
// Boot's ProblemDetailsExceptionHandler's order: after the routes' own advice.
@Order(0)
public class OpenAiRouteErrors extends ResponseEntityExceptionHandler {

	/** Where the OpenAI-compatible route is. */
	public static final String PREFIX = "/v1";

	/** The routes under {@link #PREFIX}, for a client that asked for another. */
	static final String ROUTES = "POST /v1/embeddings, GET /v1/models and GET /v1/models/{model}";

	private static final JsonMapper json = JsonMapper.builder().build();

	/**
	 * Whether a request is the OpenAI-compatible route's.
	 * @param request the request
	 * @return whether its path is {@code /v1} or under it
	 */
	public static boolean applies(HttpServletRequest request) {
		return applies(request.getContextPath(), request.getRequestURI());
	}

	/**
	 * Whether a path is the OpenAI-compatible route's.
	 * @param contextPath the application's context path, or {@code null} where the request was not mapped
	 * @param uri the request's URI as sent, or {@code null} where it could not be read
	 * @return whether it is {@code /v1} or under it
	 */
	static boolean applies(@Nullable String contextPath, @Nullable String uri) {
		if (uri == null) {
			return false;
		}
		String path = (contextPath != null && !contextPath.isEmpty() && uri.startsWith(contextPath))
				? uri.substring(contextPath.length()) : uri;
		return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
	}

	/**
	 * OpenAI's error body.
	 * @param status the status
	 * @param param the request's field at fault, or {@code null}
	 * @param code OpenAI's code ({@code model_not_found}, {@code overloaded}), or {@code null}
	 * @param message what was wrong and how to fix it
	 * @return the body
	 */
	public static Map<String, Object> body(HttpStatusCode status, @Nullable String param, @Nullable String code,
			String message) {
		Map<String, Object> error = new LinkedHashMap<>();
		error.put("message", message);
		error.put("type", type(status));
		error.put("param", param);
		error.put("code", code);
		return Map.of("error", error);
	}

	/**
	 * An answer with OpenAI's error body.
	 * @param status the status
	 * @param param the request's field at fault, or {@code null}
	 * @param code OpenAI's code, or {@code null}
	 * @param message what was wrong and how to fix it
	 * @return the answer
	 */
	public static ResponseEntity<Object> entity(HttpStatusCode status, @Nullable String param, @Nullable String code,
			String message) {
		return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).body(body(status, param, code, message));
	}

	/**
	 * OpenAI's error body as JSON, for what writes to the response itself.
	 * @param status the status
	 * @param method the request's method, where known
	 * @param uri the request's URI, where known
	 * @param detail what was wrong and how to fix it
	 * @return the JSON
	 */
	static String json(HttpStatusCode status, @Nullable String method, @Nullable String uri, String detail) {
		return json.writeValueAsString(body(status, null, null, message(status, method, uri, detail)));
	}

	/**
	 * What to tell the client: an unknown route as OpenAI words it, with the routes there are; otherwise
	 * the detail given.
	 */
	private static String message(HttpStatusCode status, @Nullable String method, @Nullable String uri, String detail) {
		if (status.value() == HttpStatus.NOT_FOUND.value()) {
			return "Invalid URL (" + method + " " + uri + "): this server has " + ROUTES;
		}
		return detail;
	}

	/** OpenAI's error types, by status, as its SDKs map them. */
	private static String type(HttpStatusCode status) {
		return switch (status.value()) {
			case 401 -> "authentication_error";
			case 403 -> "permission_error";
			case 429 -> "rate_limit_error";
			default -> status.is5xxServerError() ? "server_error" : "invalid_request_error";
		};
	}

	/**
	 * Spring MVC's own exceptions (an unknown route, a method or media type not supported, ...): an RFC
	 * 9457 problem as Boot's handler gives it, but OpenAI's body under {@code /v1}.
	 */
	@Override
	protected ResponseEntity<Object> createResponseEntity(@Nullable Object body, HttpHeaders headers,
			HttpStatusCode statusCode, WebRequest request) {
		if (request instanceof ServletWebRequest servlet && applies(servlet.getRequest())) {
			HttpStatus known = HttpStatus.resolve(statusCode.value());
			String detail = (body instanceof ProblemDetail problem && problem.getDetail() != null) ? problem.getDetail()
					: (known != null) ? known.getReasonPhrase() : "error " + statusCode.value();
			HttpServletRequest http = servlet.getRequest();
			HttpHeaders kept = new HttpHeaders();
			kept.addAll(headers);
			// The body is JSON, whatever content type the problem would have had.
			kept.remove(HttpHeaders.CONTENT_TYPE);
			return ResponseEntity.status(statusCode)
				.headers(kept)
				.contentType(MediaType.APPLICATION_JSON)
				.body(body(statusCode, null, null, message(statusCode, http.getMethod(), http.getRequestURI(), detail)));
		}
		return super.createResponseEntity(body, headers, statusCode, request);
	}
}
