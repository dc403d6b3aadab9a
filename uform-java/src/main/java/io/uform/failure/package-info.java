/**
 * How uform's runtime fails: {@link io.uform.failure.FailureFactory}, one method per kind of failure,
 * through which {@code io.uform.host}, {@code io.uform.gpu} and {@code io.uform.mesh} make every
 * exception they throw. The API ({@code io.uform}) implements it, so the runtime throws the API's
 * {@code UformException} itself, with the runtime's message, and names neither that type nor its
 * status. {@code io.uform.host} is handed the factory by the API; {@code io.uform.gpu} and
 * {@code io.uform.mesh} read it from {@link io.uform.failure.Failures}.
 *
 * <p>It is a package of its own so that dependencies run one way: {@code io.uform} (the API) uses the
 * runtime packages, and they use this package and name no type of {@code io.uform}. It names nothing
 * of uform itself.
 */
package io.uform.failure;
