package samebox.mcp.jvm.quarkus;

import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** The api-service's three endpoints; bodies stay raw JSON text for the shared ToolLogic. */
@RegisterRestClient(configKey = "api-service")
@Produces(MediaType.APPLICATION_JSON)
public interface ApiService {

  @GET
  @Path("/products/search")
  Uni<String> search(@QueryParam("category") String category, @QueryParam("min_price") String minPrice,
      @QueryParam("max_price") String maxPrice, @QueryParam("limit") int limit);

  @GET
  @Path("/products/{id}")
  Uni<String> product(@PathParam("id") long id);

  @POST
  @Path("/cart/calculate")
  @Consumes(MediaType.APPLICATION_JSON)
  Uni<String> calculate(String body);
}
