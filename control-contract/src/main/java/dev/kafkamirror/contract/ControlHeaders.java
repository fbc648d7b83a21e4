package dev.kafkamirror.contract;

/** The HTTP headers of a control call. */
public final class ControlHeaders {

  /** Carries {@value #BEARER_PREFIX} followed by the shared secret. */
  public static final String AUTHORIZATION = "Authorization";

  public static final String BEARER_PREFIX = "Bearer ";

  public static final String CONTENT_TYPE = "Content-Type";

  public static final String JSON = "application/json";

  private ControlHeaders() {}
}
